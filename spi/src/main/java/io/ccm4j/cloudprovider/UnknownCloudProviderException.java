package io.ccm4j.cloudprovider;

import java.util.Set;

/** No provider on the class path has the requested name. */
public class UnknownCloudProviderException extends Exception {

  public UnknownCloudProviderException(String name, Set<String> known) {
    super(
        "unknown cloud provider \"%s\"; known providers: %s"
            .formatted(name, known.isEmpty() ? "none" : String.join(", ", known)));
  }
}
