package io.ccm4j.app;

import java.security.Provider;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * TLS crypto in native code when this platform has it: the Amazon Corretto Crypto Provider (AWS-LC
 * through JNI), installed as the JVM's first security provider, so the JDK's TLS encrypts with
 * AES-NI and carry-less multiplication whatever the JIT compiles. Without it a C1-compiled manager
 * (ccm4j-run.jvmoptions) spends a third of its Java time in the JDK's AES-GCM written in Java: at
 * 5,000 nodes it cuts the CPU per node by a fifth (docs/benchmarks.md).
 *
 * <p>The provider is on the class path only where its library is published for the build's platform
 * (Linux x86-64, the pom's profile); elsewhere, when its library cannot load (no writable temporary
 * directory to unpack it to), or with {@code CCM4J_NATIVE_CRYPTO=off} (a site that requires the
 * JDK's providers), the JDK's own crypto serves as before.
 *
 * <p>Loading it takes a part of a 2-core machine's start (it unpacks and links its library; its
 * jar's signature is taken out by the build, {@code scripts/UnsignJars.java}, so that class-data
 * sharing archives its classes and the JVM does not digest its 9 MiB library at every start):
 * {@link #installInBackground()} does that on a thread of its own while the command parses its
 * flags and builds its clients. TLS looks its ciphers up at every handshake, so a client built
 * before the provider arrived uses it as well; {@link #installed()} waits for it.
 */
public final class NativeCrypto {

  static final String PROVIDER_CLASS =
      "com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider";

  private static volatile String installed = "the JDK's";
  private static volatile CompletableFuture<Optional<Provider>> installing;

  private NativeCrypto() {}

  /**
   * Installs the provider unless switched off or unavailable.
   *
   * @return the provider installed, if one was
   */
  public static synchronized Optional<Provider> install() {
    if ("off".equals(System.getenv("CCM4J_NATIVE_CRYPTO"))) {
      installed = "the JDK's (CCM4J_NATIVE_CRYPTO=off)";
      return Optional.empty();
    }
    try {
      Class<?> type = Class.forName(PROVIDER_CLASS);
      Provider provider = (Provider) type.getField("INSTANCE").get(null);
      Object loadingError = type.getMethod("getLoadingError").invoke(provider);
      if (loadingError != null) {
        installed = "the JDK's (the native provider did not load: " + loadingError + ")";
        return Optional.empty();
      }
      type.getMethod("install").invoke(null);
      installed = provider.getName() + " " + provider.getVersionStr();
      return Optional.of(provider);
    } catch (ClassNotFoundException e) {
      return Optional.empty(); // not published for this platform
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      installed = "the JDK's (the native provider failed: " + e + ")";
      return Optional.empty();
    }
  }

  /** Starts {@link #install()} on a daemon thread of its own (once). */
  public static synchronized void installInBackground() {
    if (installing == null) {
      CompletableFuture<Optional<Provider>> future = new CompletableFuture<>();
      installing = future;
      Thread.ofPlatform()
          .daemon()
          .name("ccm4j-native-crypto")
          .start(
              () -> {
                try {
                  future.complete(install());
                } catch (Throwable e) { // install() reports its own failures; an Error ends here
                  future.complete(Optional.empty());
                  throw e;
                }
              });
    }
  }

  /**
   * Which crypto this process's TLS uses, for its start-up log line; waits for an install started
   * in the background.
   */
  public static String installed() {
    CompletableFuture<Optional<Provider>> future = installing;
    if (future != null) {
      future.join();
    }
    return installed;
  }
}
