package io.ccm4j.cloudprovider;

/** The provider does not implement this call (upstream's {@code NotImplemented}). */
public class NotImplementedException extends CloudException {

  public NotImplementedException() {
    super("unimplemented");
  }
}
