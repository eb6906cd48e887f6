package io.ccm4j.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.Context;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * ccm4j's logging, set up in code (found by Logback through the ServiceLoader): one line per record
 * on standard error, like klog, at INFO ({@code CCM4J_LOG_LEVEL=DEBUG} for more; {@code -v} raises
 * ccm4j's own loggers), the API client's transport at WARN. Reading a {@code logback.xml} instead
 * costs a tenth of a second of the manager's start (Logback's XML configurator and the JDK's XML
 * parser).
 *
 * <p>A {@code logback.xml} or {@code logback-test.xml} on the class path, or the {@code
 * logback.configurationFile} property, still wins: then this does nothing and Logback reads that.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class LogConfiguration extends ContextAwareBase implements Configurator {

  /** The pattern of every record (the lab's log file takes the console's). */
  public static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0}: %redactedMsg%failure%n";

  /**
   * Makes {@link #PATTERN}'s {@code %failure} and {@code %redactedMsg} known to the context ({@link
   * ClientFailureConverter}, {@link RedactedMessageConverter}); before an encoder with the pattern
   * starts.
   */
  @SuppressWarnings("unchecked")
  public static void registerConverters(Context context) {
    Object registry = context.getObject(CoreConstants.PATTERN_RULE_REGISTRY);
    Map<String, String> rules =
        registry instanceof Map<?, ?> existing ? (Map<String, String>) existing : new HashMap<>();
    rules.put("failure", ClientFailureConverter.class.getName());
    rules.put("redactedMsg", RedactedMessageConverter.class.getName());
    context.putObject(CoreConstants.PATTERN_RULE_REGISTRY, rules);
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || resource("logback-test.xml")
        || resource("logback.xml")) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    configureInCode(context, System.getenv("CCM4J_LOG_LEVEL"));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  static void configureInCode(LoggerContext context, String level) {
    registerConverters(context);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("STDERR");
    console.setTarget("System.err");
    console.setEncoder(encoder);
    console.start();
    for (String quiet : new String[] {"io.fabric8", "okhttp3"}) {
      context.getLogger(quiet).setLevel(Level.WARN);
    }
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(rootLevel(level));
    root.addAppender(console);
  }

  /** {@code CCM4J_LOG_LEVEL}'s level (TRACE to ERROR, or OFF), INFO when unset or unknown. */
  static Level rootLevel(String name) {
    return name == null || name.isBlank()
        ? Level.INFO
        : Level.toLevel(name.trim().toUpperCase(Locale.ROOT), Level.INFO);
  }

  private static boolean resource(String name) {
    return LogConfiguration.class.getClassLoader().getResource(name) != null;
  }
}
