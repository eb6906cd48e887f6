package io.ccm4j.runtime.serving;

import java.util.List;
import javax.net.ssl.SSLParameters;

/**
 * How the serving port speaks TLS beyond its key: the protocol versions, cipher suites and key
 * exchange groups it offers, as JSSE names; an empty list leaves the runtime's defaults.
 */
public record ServingTls(
    List<String> protocols, List<String> cipherSuites, List<String> namedGroups) {

  /** The Java runtime's defaults (TLS 1.2 and 1.3, its default suites and groups). */
  public static final ServingTls DEFAULTS = new ServingTls(List.of(), List.of(), List.of());

  public ServingTls {
    protocols = List.copyOf(protocols);
    cipherSuites = List.copyOf(cipherSuites);
    namedGroups = List.copyOf(namedGroups);
  }

  /** {@code defaults} narrowed to what this asks for. */
  SSLParameters applyTo(SSLParameters defaults) {
    if (!protocols.isEmpty()) {
      defaults.setProtocols(protocols.toArray(String[]::new));
    }
    if (!cipherSuites.isEmpty()) {
      defaults.setCipherSuites(cipherSuites.toArray(String[]::new));
    }
    if (!namedGroups.isEmpty()) {
      defaults.setNamedGroups(namedGroups.toArray(String[]::new));
    }
    return defaults;
  }
}
