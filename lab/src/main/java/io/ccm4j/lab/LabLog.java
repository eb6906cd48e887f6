package io.ccm4j.lab;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import io.ccm4j.app.LogConfiguration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The log of what the lab runs in its process (the managers, the node-lifecycle controller, the
 * control plane's start) in a file beside the report instead of on standard error, so that the
 * terminal shows the lab's own lines. Closing it puts the appenders back.
 */
final class LabLog implements AutoCloseable {

  private final Logger root;
  private final List<Appender<ILoggingEvent>> replaced = new ArrayList<>();
  private final FileAppender<ILoggingEvent> file;

  private LabLog(Path path) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    // ccm4j's own pattern, for when no console appender is there to copy.
    LogConfiguration.registerConverters(context);
    String pattern = LogConfiguration.PATTERN;
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      Appender<ILoggingEvent> appender = it.next();
      if (appender instanceof OutputStreamAppender<ILoggingEvent> stream
          && stream.getEncoder() instanceof PatternLayoutEncoder encoder) {
        pattern = encoder.getPattern();
      }
      replaced.add(appender);
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(pattern);
    encoder.start();
    file = new FileAppender<>();
    file.setContext(context);
    file.setName("lab-log");
    file.setFile(path.toString());
    file.setAppend(false);
    file.setEncoder(encoder);
    file.start();
    root.addAppender(file);
    replaced.forEach(root::detachAppender);
  }

  /** From now on every log record goes to {@code path} (created or emptied), and only there. */
  static LabLog to(Path path) {
    return new LabLog(path);
  }

  @Override
  public void close() {
    replaced.forEach(root::addAppender);
    root.detachAppender(file);
    file.stop();
  }
}
