package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientImpl;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.junit.jupiter.api.Test;

class SharedTransportTest {

  /** As client-go's transport: HTTP/2 where the server offers it, each connection pinged. */
  @Test
  void clientsSpeakHttp2AndPingTheirConnections() {
    try (SharedTransport transport = new SharedTransport();
        HttpClient client = transport.httpClients().newBuilder().build()) {
      OkHttpClient http = ((OkHttpClientImpl) client).getOkHttpClient();

      assertThat(http.protocols()).contains(Protocol.HTTP_2, Protocol.HTTP_1_1);
      assertThat(http.pingIntervalMillis()).isEqualTo(SharedTransport.PING_INTERVAL.toMillis());
    }
  }

  /**
   * fabric8 shuts a client's dispatcher pool down when the client is closed: the other clients'
   * calls go on, on the same daemon threads, until the transport is closed.
   */
  @Test
  void closingOneClientLeavesTheOthersCallsToTheSharedDaemonThreads() throws Exception {
    try (SharedTransport transport = new SharedTransport()) {
      HttpClient closed = transport.httpClients().newBuilder().build();
      try (HttpClient open = transport.httpClients().newBuilder().build()) {
        closed.close();
        OkHttpClient http = ((OkHttpClientImpl) open).getOkHttpClient();
        CountDownLatch ran = new CountDownLatch(1);
        Thread[] on = new Thread[1];

        http.dispatcher()
            .executorService()
            .execute(
                () -> {
                  on[0] = Thread.currentThread();
                  ran.countDown();
                });

        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(on[0].getName()).startsWith(SharedTransport.THREAD_PREFIX);
        assertThat(on[0].isDaemon()).isTrue();
        assertThat(http.dispatcher())
            .isNotSameAs(((OkHttpClientImpl) closed).getOkHttpClient().dispatcher());
      }
    }
  }
}
