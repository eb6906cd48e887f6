package io.ccm4j.cloudprovider;

/** The cloud has no instance for the node (upstream's {@code InstanceNotFound}). */
public class InstanceNotFoundException extends CloudException {

  public InstanceNotFoundException(String message) {
    super(message);
  }

  public InstanceNotFoundException() {
    super("instance not found");
  }
}
