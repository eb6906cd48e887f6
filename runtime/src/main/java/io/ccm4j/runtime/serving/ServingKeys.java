package io.ccm4j.runtime.serving;

import io.ccm4j.tls.SelfSignedCertificate;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The key and certificate an HTTPS server presents, in a key store with its password, and the TLS
 * it speaks ({@link ServingTls}).
 */
public final class ServingKeys {

  private final CompletableFuture<KeyStore> keyStore;
  private final char[] password;
  private final ServingTls tls;

  public ServingKeys(KeyStore keyStore, char[] password) {
    this(CompletableFuture.completedFuture(keyStore), password, ServingTls.DEFAULTS);
  }

  private ServingKeys(CompletableFuture<KeyStore> keyStore, char[] password, ServingTls tls) {
    this.keyStore = keyStore;
    this.password = password;
    this.tls = tls;
  }

  /** These keys, served with {@code tls}. */
  public ServingKeys withTls(ServingTls tls) {
    return new ServingKeys(keyStore, password, tls);
  }

  public ServingTls tls() {
    return tls;
  }

  /**
   * A self-signed certificate for localhost, made in memory (A1: when no certificate is given). It
   * is made on a daemon thread of its own while the manager goes on starting: the first certificate
   * of a process loads Bouncy Castle, a tenth of a second of a 2-core machine's start even with its
   * classes in the class-data archive (the build takes its jars' signatures out so that they can
   * be: {@code scripts/UnsignJars.java}).
   */
  public static ServingKeys selfSigned() {
    char[] password = "in-memory".toCharArray();
    CompletableFuture<KeyStore> store = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("ccm4j-serving-keys")
        .start(
            () -> {
              try {
                store.complete(
                    SelfSignedCertificate.forLocalhost(Duration.ofDays(365)).toKeyStore(password));
              } catch (Throwable e) {
                store.completeExceptionally(e);
              }
            });
    return new ServingKeys(store, password, ServingTls.DEFAULTS);
  }

  /** The key store, once made. */
  public KeyStore keyStore() {
    try {
      return keyStore.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  public char[] password() {
    return password;
  }
}
