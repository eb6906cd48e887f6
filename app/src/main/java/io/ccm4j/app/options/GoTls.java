package io.ccm4j.app.options;

import io.ccm4j.runtime.serving.ServingTls;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The serving TLS flags' values as upstream reads them (component-base's {@code TLSVersion}, {@code
 * TLSCipherSuites}, {@code TLSCurvePreferences}: Go's names and curve IDs), in JSSE's terms. Go
 * offers suites the Java runtime has disabled as insecure (RSA key exchange, RC4, 3DES): those are
 * left out, and a list of nothing else is refused. As in Go, the TLS 1.3 suites are always on.
 */
final class GoTls {

  private static final Map<String, List<String>> VERSIONS =
      Map.of(
          "VersionTLS10", List.of("TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1"),
          "VersionTLS11", List.of("TLSv1.3", "TLSv1.2", "TLSv1.1"),
          "VersionTLS12", List.of("TLSv1.3", "TLSv1.2"),
          "VersionTLS13", List.of("TLSv1.3"));

  private static final List<String> TLS13_SUITES =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

  /** Go's suite names (crypto/tls's secure and insecure ones) and their IANA names, as JSSE's. */
  private static final Map<String, String> SUITES =
      Map.ofEntries(
          same("TLS_AES_128_GCM_SHA256"),
          same("TLS_AES_256_GCM_SHA384"),
          same("TLS_CHACHA20_POLY1305_SHA256"),
          same("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
          same("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
          same("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"),
          same("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
          Map.entry(
              "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
              "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"), // component-base's legacy name
          same("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
          same("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"),
          same("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
          same("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"),
          same("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
          Map.entry(
              "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
              "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
          same("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
          same("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"),
          same("TLS_ECDHE_ECDSA_WITH_RC4_128_SHA"),
          same("TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA"),
          same("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"),
          same("TLS_ECDHE_RSA_WITH_RC4_128_SHA"),
          Map.entry("TLS_RSA_WITH_3DES_EDE_CBC_SHA", "SSL_RSA_WITH_3DES_EDE_CBC_SHA"),
          same("TLS_RSA_WITH_AES_128_CBC_SHA"),
          same("TLS_RSA_WITH_AES_128_CBC_SHA256"),
          same("TLS_RSA_WITH_AES_128_GCM_SHA256"),
          same("TLS_RSA_WITH_AES_256_CBC_SHA"),
          same("TLS_RSA_WITH_AES_256_GCM_SHA384"),
          Map.entry("TLS_RSA_WITH_RC4_128_SHA", "SSL_RSA_WITH_RC4_128_SHA"));

  /** Go's curve IDs (crypto/tls's CurveID) and JSSE's named groups. */
  private static final Map<Integer, String> CURVES =
      Map.of(
          23, "secp256r1",
          24, "secp384r1",
          25, "secp521r1",
          29, "x25519",
          4587, "SecP256r1MLKEM768",
          4588, "X25519MLKEM768",
          4589, "SecP384r1MLKEM1024");

  private GoTls() {}

  private static Map.Entry<String, String> same(String name) {
    return Map.entry(name, name);
  }

  /**
   * The serving TLS for the flags' values, checked against what this Java runtime offers.
   *
   * @throws IllegalArgumentException naming the flag
   */
  static ServingTls serving(String minVersion, List<String> cipherSuites, List<String> curves) {
    SSLParameters offered = offered();
    return new ServingTls(
        protocols(minVersion, Set.of(offered.getProtocols())),
        cipherSuites(cipherSuites, Set.of(offered.getCipherSuites())),
        namedGroups(curves, Set.of(offered.getNamedGroups())));
  }

  static List<String> protocols(String minVersion, Set<String> offered) {
    if (minVersion == null || minVersion.isEmpty()) {
      return List.of();
    }
    List<String> protocols = VERSIONS.get(minVersion);
    if (protocols == null) {
      throw new IllegalArgumentException(
          "--tls-min-version: unknown tls version \"%s\" (VersionTLS10, VersionTLS11,"
                  .formatted(minVersion)
              + " VersionTLS12, VersionTLS13)");
    }
    return protocols.stream().filter(offered::contains).toList();
  }

  static List<String> cipherSuites(List<String> goNames, Set<String> offered) {
    if (goNames.isEmpty()) {
      return List.of();
    }
    Set<String> suites = new LinkedHashSet<>();
    for (String name : goNames) {
      String jsse = SUITES.get(name);
      if (jsse == null) {
        throw new IllegalArgumentException(
            "--tls-cipher-suites: Cipher suite %s not supported or doesn't exist".formatted(name));
      }
      if (offered.contains(jsse) && !TLS13_SUITES.contains(jsse)) {
        suites.add(jsse);
      }
    }
    if (suites.isEmpty()) {
      throw new IllegalArgumentException(
          ("--tls-cipher-suites: this Java runtime offers none of %s for TLS 1.2 (it disables RSA"
                  + " key exchange, RC4 and 3DES as insecure)")
              .formatted(goNames));
    }
    TLS13_SUITES.stream().filter(offered::contains).forEach(suites::add);
    return List.copyOf(suites);
  }

  static List<String> namedGroups(List<String> values, Set<String> offered) {
    List<String> groups = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (String value : values) {
      for (String field : value.split(",", -1)) {
        int id = curveId(field.trim());
        if (id <= 0 || id > 65535) {
          throw new IllegalArgumentException(
              "--tls-curve-preferences: curve preference %d is out of range (must be 1-65535)"
                  .formatted(id));
        }
        if (!seen.add(id)) {
          throw new IllegalArgumentException(
              "--tls-curve-preferences: duplicate curve preference " + id);
        }
        String group = CURVES.get(id);
        if (group == null) {
          throw new IllegalArgumentException(
              ("--tls-curve-preferences: curve preference %d is not supported (Go's: 23 P-256, 24"
                      + " P-384, 25 P-521, 29 X25519, 4587, 4588, 4589 the ML-KEM hybrids)")
                  .formatted(id));
        }
        if (offered.contains(group)) {
          groups.add(group);
        }
      }
    }
    if (!seen.isEmpty() && groups.isEmpty()) {
      throw new IllegalArgumentException(
          "--tls-curve-preferences: this Java runtime offers none of " + seen);
    }
    return groups;
  }

  /** An int32 as pflag reads it (strconv.ParseInt with base 0: 23, 0x17, 027). */
  private static int curveId(String value) {
    try {
      long id = Long.decode(value.replace("_", ""));
      return id < Integer.MIN_VALUE || id > Integer.MAX_VALUE ? -1 : (int) id;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--tls-curve-preferences: '%s' is not a curve ID (23, 24, 25, 29, ...)".formatted(value));
    }
  }

  private static SSLParameters offered() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, null, null);
      return context.getSupportedSSLParameters();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this Java runtime: " + e.getMessage(), e);
    }
  }
}
