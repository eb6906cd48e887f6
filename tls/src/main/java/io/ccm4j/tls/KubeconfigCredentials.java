package io.ccm4j.tls;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import io.fabric8.kubernetes.client.internal.CertUtils;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.openssl.PEMParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a kubeconfig's user holds that fabric8 does not read as client-go does. A {@code tokenFile}:
 * fabric8 ignores it, and every request goes out as {@code system:anonymous}; client-go reads the
 * token from it at start and again at most once a minute, so a rotated token is picked up (a read
 * that fails then keeps the token it has). A client key in PKCS#8 ({@code BEGIN PRIVATE KEY}):
 * fabric8 takes it for RSA unless told, and the client cannot be built from an EC key; client-go
 * reads the key's algorithm from the key.
 */
public final class KubeconfigCredentials {

  private static final Logger log = LoggerFactory.getLogger(KubeconfigCredentials.class);

  /** How long a token read from its file is used before the file is read again (client-go's). */
  static final Duration TOKEN_FILE_PERIOD = Duration.ofMinutes(1);

  private KubeconfigCredentials() {}

  /**
   * Completes {@code config}, read by fabric8 from {@code kubeconfig}, with its user's token file
   * and its client key's algorithm.
   *
   * @param directory where a relative {@code tokenFile} is found: the kubeconfig file's directory,
   *     as client-go resolves it; {@code null} for a kubeconfig given as text (the working
   *     directory)
   * @throws IllegalArgumentException naming the user's field that cannot be used
   */
  public static Config complete(
      Config config, io.fabric8.kubernetes.api.model.Config kubeconfig, Path directory) {
    user(config, kubeconfig)
        .filter(user -> isSet(user.getTokenFile()))
        .ifPresent(user -> config.setOauthTokenProvider(tokenFile(user, directory)));
    keyAlgorithm(config).ifPresent(config::setClientKeyAlgo);
    return config;
  }

  private static Optional<AuthInfo> user(
      Config config, io.fabric8.kubernetes.api.model.Config kubeconfig) {
    NamedContext context = config.getCurrentContext();
    if (context == null || context.getContext() == null || kubeconfig.getUsers() == null) {
      return Optional.empty();
    }
    String name = context.getContext().getUser();
    return kubeconfig.getUsers().stream()
        .filter(user -> user.getName() != null && user.getName().equals(name))
        .map(NamedAuthInfo::getUser)
        .filter(Objects::nonNull)
        .findFirst();
  }

  private static OAuthTokenProvider tokenFile(AuthInfo user, Path directory) {
    Path file = Path.of(user.getTokenFile());
    if (directory != null && !file.isAbsolute()) {
      file = directory.resolve(file);
    }
    TokenFile tokens =
        new TokenFile(file, isSet(user.getToken()) ? user.getToken() : null, System::nanoTime);
    if (tokens.fallback == null) {
      // client-go reads it when the configuration is made: a file that cannot be read ends the
      // start.
      tokens.getToken();
    }
    return tokens;
  }

  /** The bearer token of a file, read again once {@link #TOKEN_FILE_PERIOD} has passed. */
  static final class TokenFile implements OAuthTokenProvider {

    private final Path file;
    private final String fallback;
    private final LongSupplier nanoClock;
    private String token;
    private long readAt;

    TokenFile(Path file, String fallback, LongSupplier nanoClock) {
      this.file = file;
      this.fallback = fallback;
      this.nanoClock = nanoClock;
    }

    @Override
    public synchronized String getToken() {
      long now = nanoClock.getAsLong();
      if (token == null || now - readAt >= TOKEN_FILE_PERIOD.toNanos()) {
        try {
          String read = Files.readString(file, StandardCharsets.UTF_8).strip();
          if (read.isEmpty()) {
            throw new IOException("it is empty");
          }
          token = read;
          readAt = now;
        } catch (IOException | RuntimeException e) {
          String reason = e instanceof NoSuchFileException ? "no such file" : e.getMessage();
          String kept = token != null ? token : fallback;
          if (kept == null) {
            throw new IllegalArgumentException(
                "user's tokenFile %s cannot be read: %s".formatted(file, reason), e);
          }
          log.warn(
              "cannot read the token file {} again ({}); the token read before stays",
              file,
              reason);
          token = kept;
          readAt = now;
        }
      }
      return token;
    }
  }

  /**
   * The algorithm of a PKCS#8 client key, which fabric8 does not read from the key: {@code EC} or
   * {@code RSA}; empty for a key in another form (PKCS#1, SEC1), whose header names it.
   */
  private static Optional<String> keyAlgorithm(Config config) {
    if (!isSet(config.getClientKeyData()) && !isSet(config.getClientKeyFile())) {
      return Optional.empty();
    }
    Object parsed;
    try (PEMParser pem =
        new PEMParser(
            new InputStreamReader(
                CertUtils.getInputStreamFromDataOrFile(
                    config.getClientKeyData(), config.getClientKeyFile()),
                StandardCharsets.UTF_8))) {
      parsed = pem.readObject();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "user's client key cannot be read: " + (e.getMessage() == null ? e : e.getMessage()), e);
    }
    if (!(parsed instanceof PrivateKeyInfo key)) {
      return Optional.empty();
    }
    ASN1ObjectIdentifier algorithm = key.getPrivateKeyAlgorithm().getAlgorithm();
    if (algorithm.equals(X9ObjectIdentifiers.id_ecPublicKey)) {
      return Optional.of("EC");
    }
    if (algorithm.equals(PKCSObjectIdentifiers.rsaEncryption)) {
      return Optional.of("RSA");
    }
    String name =
        algorithm.equals(EdECObjectIdentifiers.id_Ed25519)
            ? "Ed25519"
            : algorithm.equals(EdECObjectIdentifiers.id_Ed448) ? "Ed448" : algorithm.getId();
    throw new IllegalArgumentException(
        "user's client key is an %s key, which this client cannot sign with: give an EC or RSA key"
            .formatted(name));
  }

  private static boolean isSet(String value) {
    return value != null && !value.isBlank();
  }
}
