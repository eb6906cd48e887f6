package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.net.IpAddresses;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import io.ccm4j.runtime.serving.ServingTls;
import io.ccm4j.tls.PemKeyStores;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The HTTPS endpoint for health and metrics. */
public final class ServingOptions {

  @Option(
      names = "--bind-address",
      paramLabel = "<ip>",
      defaultValue = "0.0.0.0",
      description = "The address to serve health and metrics on. Default: ${DEFAULT-VALUE}.")
  String bindAddress;

  @Option(
      names = "--secure-port",
      converter = GoInt.class,
      paramLabel = "<port>",
      defaultValue = "10258",
      description =
          "The HTTPS port for /healthz, /readyz, /livez and /metrics; 0 turns serving off. Default: ${DEFAULT-VALUE}.")
  int securePort;

  @Option(
      names = "--tls-cert-file",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description =
          "PEM certificate (chain) to serve with. Without it, an in-memory self-signed one is used.")
  Path tlsCertFile;

  @Option(
      names = "--tls-private-key-file",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description = "PEM private key matching --tls-cert-file.")
  Path tlsPrivateKeyFile;

  @Option(
      names = "--cert-dir",
      paramLabel = "<dir>",
      description =
          "Without --tls-cert-file: serve cloud-controller-manager.crt and .key from this"
              + " directory when both are there, as upstream's (which also writes its self-signed"
              + " pair there; ccm4j keeps that in memory).")
  String certDir; // empty, as upstream's default: none

  @Option(
      names = "--tls-min-version",
      paramLabel = "<version>",
      description =
          "Minimum TLS version served: VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13"
              + " (upstream's names). Default: TLS 1.2.")
  String tlsMinVersion;

  @Option(
      names = "--tls-cipher-suites",
      paramLabel = "<suites>",
      description =
          "Cipher suites for TLS 1.2, comma-separated, in Go's (IANA) names; the TLS 1.3 suites"
              + " stay on, as upstream's. Suites this Java runtime disables as insecure (RSA key"
              + " exchange, RC4, 3DES) are left out. Default: the runtime's.")
  List<String> tlsCipherSuites = List.of(); // each occurrence as given: upstream's list syntax

  @Option(
      names = "--tls-curve-preferences",
      paramLabel = "<ids>",
      description =
          "Key exchange groups, as Go's curve IDs, comma-separated (23 P-256, 24 P-384, 25 P-521,"
              + " 29 X25519, 4587-4589 the ML-KEM hybrids); those this Java runtime lacks are left"
              + " out. Default: the runtime's.")
  List<String> tlsCurvePreferences = List.of();

  @Option(
      names = "--authorization-always-allow-paths",
      paramLabel = "<path>",
      defaultValue = "/healthz,/readyz,/livez",
      description =
          "Paths served without authentication or authorization (a trailing * matches a prefix);"
              + " every other path needs a user who may get it (SubjectAccessReview), named by a"
              + " client certificate (--client-ca-file) or a bearer token (TokenReview). Default:"
              + " ${DEFAULT-VALUE}.")
  List<String> alwaysAllowPaths; // each occurrence as given: upstream's list syntax (GoCsv)

  @Option(
      names = "--client-ca-file",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description =
          "PEM certificates of the authorities whose client certificates identify a user on the"
              + " serving port, as upstream's: the common name is the user, the organizations its"
              + " groups, before any bearer token. Default: none (tokens only).")
  Path clientCaFile;

  @Option(
      names = "--authentication-kubeconfig",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description =
          "Kubeconfig of the API server that reviews the serving port's tokens (TokenReview)."
              + " Default: the manager's own connection.")
  Path authenticationKubeconfig;

  @Option(
      names = "--authorization-kubeconfig",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description =
          "Kubeconfig of the API server that decides access to the serving port's paths"
              + " (SubjectAccessReview). Default: the manager's own connection.")
  Path authorizationKubeconfig;

  List<String> alwaysAllowPaths() {
    return GoCsv.fields("--authorization-always-allow-paths", alwaysAllowPaths).stream()
        .map(String::trim)
        .filter(p -> !p.isEmpty())
        .toList();
  }

  /** Who may read what; the kubeconfigs and client CAs are read here (validate() checked them). */
  public ServingAccess access() {
    return new ServingAccess(
        alwaysAllowPaths(),
        Optional.ofNullable(authenticationKubeconfig)
            .map(file -> KubeClientOptions.fromKubeconfig("--authentication-kubeconfig", file)),
        Optional.ofNullable(authorizationKubeconfig)
            .map(file -> KubeClientOptions.fromKubeconfig("--authorization-kubeconfig", file)),
        clientCaFile == null ? List.of() : clientCas(clientCaFile));
  }

  /** The certificates of a PEM file, at least one, or an error naming the flag. */
  static List<X509Certificate> clientCas(Path file) {
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException(
          "--client-ca-file: %s is a directory, not a PEM file".formatted(file));
    }
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> certificates = new ArrayList<>();
      for (Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certificates.add((X509Certificate) certificate);
      }
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException(
            "--client-ca-file: no PEM certificate in %s".formatted(file));
      }
      return List.copyOf(certificates);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "--client-ca-file: cannot read %s: no such file".formatted(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--client-ca-file: cannot read %s: %s".formatted(file, e.getMessage()));
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          "--client-ca-file: %s holds no readable PEM certificates (%s)"
              .formatted(file, e.getMessage()));
    }
  }

  public Optional<String> validate() {
    List<String> paths;
    try {
      paths = alwaysAllowPaths();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    for (String path : paths) {
      if (!path.startsWith("/")) {
        return Optional.of(
            "--authorization-always-allow-paths: \"%s\" must start with /".formatted(path));
      }
    }
    if (securePort < 0 || securePort > 65535) {
      return Optional.of("--secure-port must be between 0 and 65535, got " + securePort);
    }
    // An IP, as upstream's flag (pflag's IP type, which keeps its default for an empty value and
    // trims spaces): a name would be resolved, to one address.
    bindAddress = bindAddress == null || bindAddress.isBlank() ? "0.0.0.0" : bindAddress.strip();
    if (!IpAddresses.isIp(bindAddress)) {
      return Optional.of(
          "--bind-address: \"%s\" is not an IP address (0.0.0.0, 127.0.0.1, ::)"
              .formatted(bindAddress));
    }
    try {
      tls();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    if ((tlsCertFile == null) != (tlsPrivateKeyFile == null)) {
      return Optional.of("--tls-cert-file and --tls-private-key-file must be given together");
    }
    for (Path file : new Path[] {tlsCertFile, tlsPrivateKeyFile}) {
      if (file != null && !Files.isReadable(file)) {
        return Optional.of("cannot read " + file);
      }
    }
    if (clientCaFile != null) {
      try {
        clientCas(clientCaFile);
      } catch (IllegalArgumentException e) {
        return Optional.of(e.getMessage());
      }
    }
    if (authenticationKubeconfig != null && !Files.isReadable(authenticationKubeconfig)) {
      return Optional.of("--authentication-kubeconfig: cannot read " + authenticationKubeconfig);
    }
    if (authorizationKubeconfig != null && !Files.isReadable(authorizationKubeconfig)) {
      return Optional.of("--authorization-kubeconfig: cannot read " + authorizationKubeconfig);
    }
    return Optional.empty();
  }

  public Optional<InetSocketAddress> address() {
    return securePort == 0
        ? Optional.empty()
        : Optional.of(new InetSocketAddress(bindAddress, securePort));
  }

  /**
   * The serving keys: the given files, else a self-signed certificate for localhost; served with
   * the TLS the flags ask for.
   */
  public ServingKeys keys() {
    if (tlsCertFile != null) {
      return fromFiles(tlsCertFile, tlsPrivateKeyFile);
    }
    if (certDir != null && !certDir.isEmpty()) {
      // Upstream's pair name for the cloud-controller-manager (NewCloudControllerManagerOptions).
      Path cert = Path.of(certDir, CERT_DIR_PAIR + ".crt");
      Path key = Path.of(certDir, CERT_DIR_PAIR + ".key");
      if (Files.isReadable(cert) && Files.isReadable(key)) {
        return fromFiles(cert, key);
      }
    }
    return ServingKeys.selfSigned().withTls(tls());
  }

  private static final String CERT_DIR_PAIR = "cloud-controller-manager";

  private ServingKeys fromFiles(Path cert, Path key) {
    char[] password = "from-files".toCharArray();
    return new ServingKeys(PemKeyStores.load(cert, key, password), password).withTls(tls());
  }

  private ServingTls tls() {
    return GoTls.serving(
        tlsMinVersion, GoCsv.fields("--tls-cipher-suites", tlsCipherSuites), tlsCurvePreferences);
  }
}
