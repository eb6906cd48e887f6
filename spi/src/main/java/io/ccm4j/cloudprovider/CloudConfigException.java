package io.ccm4j.cloudprovider;

/** The cloud configuration ({@code --cloud-config}) cannot be read or is invalid. */
public class CloudConfigException extends Exception {

  public CloudConfigException(String message) {
    super(message);
  }

  public CloudConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
