package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.core.ConsoleAppender;
import org.junit.jupiter.api.Test;

class LogConfigurationTest {

  @Test
  void inCodeOneLinePerRecordOnStandardErrorWithTheTransportQuiet() {
    LoggerContext context = new LoggerContext();

    LogConfiguration.configureInCode(context, null);

    var root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.INFO);
    assertThat(root.getAppender("STDERR"))
        .isInstanceOfSatisfying(
            ConsoleAppender.class,
            console -> {
              assertThat(console.getTarget()).isEqualTo("System.err");
              assertThat(console.isStarted()).isTrue();
              assertThat(((PatternLayoutEncoder) console.getEncoder()).getPattern())
                  .isEqualTo(LogConfiguration.PATTERN);
            });
    for (String transport : new String[] {"io.fabric8", "okhttp3"}) {
      assertThat(context.getLogger(transport).getLevel()).as(transport).isEqualTo(Level.WARN);
    }
    assertThat(context.getLogger("io.ccm4j.controllers").getEffectiveLevel()).isEqualTo(Level.INFO);
  }

  @Test
  void theLevelFromTheEnvironmentAnyCaseUnknownIsInfo() {
    assertThat(LogConfiguration.rootLevel("debug")).isEqualTo(Level.DEBUG);
    assertThat(LogConfiguration.rootLevel(" WARN ")).isEqualTo(Level.WARN);
    assertThat(LogConfiguration.rootLevel("off")).isEqualTo(Level.OFF);
    assertThat(LogConfiguration.rootLevel("loud")).isEqualTo(Level.INFO);
    assertThat(LogConfiguration.rootLevel("")).isEqualTo(Level.INFO);
  }

  @Test
  void anXmlConfigurationOnTheClassPathWins() {
    // The tests' class path holds logback-test.xml: Logback's own configurator reads it.
    LoggerContext context = new LoggerContext();
    LogConfiguration configuration = new LogConfiguration();
    configuration.setContext(context);

    assertThat(configuration.configure(context)).isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
    assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNull();
  }

  /**
   * fabric8's informers and elector log every retry with its whole stack: the reason on the
   * record's line instead, the stack only when the client is logged verbosely; others' as ever.
   */
  @Test
  void theClientsRetriesAreOneLineEachOthersKeepTheirStacks() {
    LoggerContext context = new LoggerContext();
    context.getLogger("io.fabric8").setLevel(Level.WARN); // as configureInCode sets it
    LogConfiguration.registerConverters(context);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(LogConfiguration.PATTERN);
    encoder.start();
    Exception refused =
        new java.util.concurrent.CompletionException(
            new io.fabric8.kubernetes.client.KubernetesClientException(
                new io.fabric8.kubernetes.api.model.StatusBuilder()
                    .withCode(403)
                    .withMessage("leases.coordination.k8s.io is forbidden")
                    .build()));
    java.util.function.Function<String, String> logged =
        logger ->
            new String(
                encoder.encode(
                    new ch.qos.logback.classic.spi.LoggingEvent(
                        getClass().getName(),
                        context.getLogger(logger),
                        Level.WARN,
                        "listSyncAndWatch failed, will retry",
                        refused,
                        null)),
                java.nio.charset.StandardCharsets.UTF_8);

    String reflector = "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";
    assertThat(logged.apply(reflector))
        .endsWith(
            "Reflector: listSyncAndWatch failed, will retry: leases.coordination.k8s.io is"
                + " forbidden (403)"
                + System.lineSeparator())
        .hasLineCount(1);
    assertThat(logged.apply("io.ccm4j.controllers.Example"))
        .contains("Example: listSyncAndWatch failed, will retry" + System.lineSeparator())
        .contains("\tat ");
    context.getLogger("io.fabric8").setLevel(Level.DEBUG);
    assertThat(logged.apply(reflector)).contains("\tat ");
  }

  /** --v=8 logs the client's requests: never its credentials, nor a protobuf body's bytes. */
  @Test
  void theClientsRequestLogMasksCredentialsAndBinaryBodies() {
    assertThat(RedactedMessageConverter.redact("> Authorization: Bearer bd4fdbd6bcc72727"))
        .isEqualTo("> Authorization: Bearer <masked>");
    assertThat(RedactedMessageConverter.redact("> authorization: Basic dXNlcjpwYXNz"))
        .isEqualTo("> Authorization: Basic <masked>");
    assertThat(RedactedMessageConverter.redact("k8s\u0000\n\u0010v1\u0012\u0004Node"))
        .isEqualTo("[a binary body of 14 characters]");
    assertThat(RedactedMessageConverter.redact("> GET https://127.0.0.1:6443/api/v1/nodes"))
        .isEqualTo("> GET https://127.0.0.1:6443/api/v1/nodes");
    assertThat(
            RedactedMessageConverter.redact(
                "{\"kind\":\"TokenRequest\",\"status\":{\"token\":\"eyJhbGci\\\"x\","
                    + "\"expirationTimestamp\":\"2026-11-27T18:00:00Z\"}}"))
        .isEqualTo(
            "{\"kind\":\"TokenRequest\",\"status\":{\"token\":\"<masked>\","
                + "\"expirationTimestamp\":\"2026-11-27T18:00:00Z\"}}");
    assertThat(
            RedactedMessageConverter.redact(
                "{\"kind\":\"Secret\",\"data\": {\"ca.crt\":\"LS0t\",\"token\":\"ZXlK\"},"
                    + "\"type\":\"Opaque\"}"))
        .isEqualTo("{\"kind\":\"Secret\",\"data\":{<masked>},\"type\":\"Opaque\"}");

    LoggerContext context = new LoggerContext();
    LogConfiguration.registerConverters(context);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(LogConfiguration.PATTERN);
    encoder.start();
    String line =
        new String(
            encoder.encode(
                new ch.qos.logback.classic.spi.LoggingEvent(
                    getClass().getName(),
                    context.getLogger(RedactedMessageConverter.HTTP_LOGGING),
                    Level.TRACE,
                    "> Authorization: Bearer {}",
                    null,
                    new Object[] {"secret-token"})),
            java.nio.charset.StandardCharsets.UTF_8);
    assertThat(line)
        .endsWith(
            "HttpLoggingInterceptor: > Authorization: Bearer <masked>" + System.lineSeparator());
  }
}
