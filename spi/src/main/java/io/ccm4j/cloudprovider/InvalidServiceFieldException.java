package io.ccm4j.cloudprovider;

/**
 * A Service asks for something the load balancer cannot be built from: a malformed annotation, a
 * port or protocol the cloud does not offer. The controller reports it as a Warning event on the
 * Service naming {@link #field()}; retrying cannot help until the Service changes.
 */
public class InvalidServiceFieldException extends CloudException {

  private final String field;

  /**
   * @param field the field or annotation at fault, as a user would find it in the Service ({@code
   *     spec.ports[1].protocol}, {@code metadata.annotations[service.beta...]})
   */
  public InvalidServiceFieldException(String field, String problem) {
    super(field + ": " + problem);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
