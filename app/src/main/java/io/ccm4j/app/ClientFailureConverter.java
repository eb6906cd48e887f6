package io.ccm4j.app;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.CoreConstants;
import io.ccm4j.runtime.client.KubernetesErrors;
import java.util.List;

/**
 * A log record's exception ({@code %failure}): for the Kubernetes client and its transport
 * (fabric8, OkHttp), whose informers and elector log every retry with the whole stack, the reason
 * on the record's own line; with those loggers at DEBUG ({@code --v=6} and up) the stack as well,
 * and for every other logger always, on the lines after the record's.
 */
public final class ClientFailureConverter extends ThrowableProxyConverter {

  /** The loggers whose failures are retried and said in one line. */
  static final List<String> CLIENT_LOGGERS = List.of("io.fabric8", "okhttp3");

  @Override
  public String convert(ILoggingEvent event) {
    IThrowableProxy proxy = event.getThrowableProxy();
    if (proxy == null) {
      return "";
    }
    if (quiet(event.getLoggerName())) {
      String reason =
          proxy instanceof ThrowableProxy thrown
              ? KubernetesErrors.reason(thrown.getThrowable())
              : proxy.getMessage() == null ? proxy.getClassName() : proxy.getMessage();
      return ": " + reason;
    }
    String stack = super.convert(event);
    if (stack.endsWith(CoreConstants.LINE_SEPARATOR)) {
      stack = stack.substring(0, stack.length() - CoreConstants.LINE_SEPARATOR.length());
    }
    return CoreConstants.LINE_SEPARATOR + stack;
  }

  private boolean quiet(String logger) {
    if (logger == null
        || CLIENT_LOGGERS.stream()
            .noneMatch(prefix -> logger.equals(prefix) || logger.startsWith(prefix + "."))) {
      return false;
    }
    return !(getContext() instanceof LoggerContext context)
        || !context.getLogger(logger).isDebugEnabled();
  }
}
