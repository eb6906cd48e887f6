package io.fabric8.kubernetes.client.http;

/**
 * Requests of any method whose body is a byte array. fabric8's request builder takes a byte array
 * only for a POST; a PUT or PATCH of bytes goes through an {@code InputStream}, which its clients
 * stream chunk by chunk (its Vert.x client read it on a worker thread and wrote it from the event
 * loop: a tenth of the event loops' samples at 1,500 nodes), where a byte array goes out in one
 * write. This lives in fabric8's package because the request's constructor that takes a body is
 * package-private; the request is otherwise fabric8's own, and its copy (the interceptors' {@code
 * newBuilder()}) keeps the method and the body.
 */
public final class ByteArrayRequests {

  private ByteArrayRequests() {}

  /**
   * {@code post}, a POST built with a byte array body ({@link HttpRequest.Builder#post(String,
   * byte[])}), as a request of {@code method}.
   */
  public static HttpRequest withMethod(HttpRequest post, String method) {
    StandardHttpRequest request = (StandardHttpRequest) post;
    if (!(request.body() instanceof StandardHttpRequest.ByteArrayBodyContent)) {
      throw new IllegalArgumentException("not a request with a byte array body");
    }
    return new StandardHttpRequest(
        request.headers(),
        request.uri(),
        method,
        request.bodyString(),
        request.body(),
        request.isExpectContinue(),
        request.getContentType(),
        request.getTimeout(),
        request.isForStreaming());
  }
}
