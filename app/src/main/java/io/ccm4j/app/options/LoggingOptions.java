package io.ccm4j.app.options;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * klog's {@code -v}/{@code --v}, which most CCM manifests pass, mapped onto the log levels: up to 3
 * (klog's usual production range) changes nothing, 4 and 5 log ccm4j at DEBUG, 6 and 7 at TRACE,
 * and from 8 the Kubernetes client's requests too (klog logs request bodies from 8).
 */
public final class LoggingOptions {

  @Option(
      names = {"-v", "--v"},
      paramLabel = "<level>",
      defaultValue = "0",
      description =
          "Log verbosity, as klog's: 0-3 INFO, 4-5 DEBUG, 6-7 TRACE, 8+ also the Kubernetes"
              + " client's requests. Default: ${DEFAULT-VALUE}.")
  int verbosity;

  public Optional<String> validate() {
    if (verbosity < 0) {
      return Optional.of("--v must not be negative, got " + verbosity);
    }
    return Optional.empty();
  }

  /** Sets the log levels for this verbosity; below 4 it leaves them as configured. */
  public void apply() {
    apply(verbosity);
  }

  /** fabric8's interceptor that logs each request and answer (credentials masked in the log). */
  public static final String HTTP_LOGGING =
      "io.fabric8.kubernetes.client.http.HttpLoggingInterceptor";

  static void apply(int verbosity) {
    if (verbosity >= 4) {
      logger("io.ccm4j").setLevel(verbosity >= 6 ? Level.TRACE : Level.DEBUG);
    }
    if (verbosity >= 8) {
      logger("io.fabric8").setLevel(Level.DEBUG);
      // The client's requests and answers, as client-go's --v=8 logs them: fabric8's logging
      // interceptor writes them at TRACE only.
      logger(HTTP_LOGGING).setLevel(Level.TRACE);
    }
  }

  private static Logger logger(String name) {
    return (Logger) LoggerFactory.getLogger(name);
  }
}
