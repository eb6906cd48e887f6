package io.ccm4j.app;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.ccm4j.app.options.LoggingOptions;
import java.util.regex.Pattern;

/**
 * A log record's message ({@code %redactedMsg}), but for the Kubernetes client's request log
 * ({@code --v=8}): its credentials masked, as client-go masks them ({@code Authorization: Bearer
 * <masked>}), as are a JSON body's (a TokenRequest's token, a Secret's data, a password or key),
 * and a binary body (protobuf) named by its size instead of written out.
 */
public final class RedactedMessageConverter extends MessageConverter {

  /** fabric8's interceptor that logs each request's and answer's headers and body. */
  static final String HTTP_LOGGING = LoggingOptions.HTTP_LOGGING;

  @Override
  public String convert(ILoggingEvent event) {
    String message = super.convert(event);
    if (message == null || !HTTP_LOGGING.equals(event.getLoggerName())) {
      return message;
    }
    return redact(message);
  }

  static String redact(String message) {
    for (String header : new String[] {"> Authorization: ", "> Proxy-Authorization: "}) {
      if (message.regionMatches(true, 0, header, 0, header.length())) {
        String credentials = message.substring(header.length()).strip();
        int space = credentials.indexOf(' ');
        return header + (space > 0 ? credentials.substring(0, space) + " " : "") + "<masked>";
      }
    }
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        return "[a binary body of " + message.length() + " characters]";
      }
    }
    if (message.startsWith("{") || message.startsWith("[")) {
      // A JSON body: a TokenRequest's token, a Secret's data, a password, a key.
      return SECRET_MAP
          .matcher(SECRET_VALUE.matcher(message).replaceAll("\"$1\":\"<masked>\""))
          .replaceAll("\"$1\":{<masked>}");
    }
    return message;
  }

  /** A JSON string field that holds a credential. */
  private static final Pattern SECRET_VALUE =
      Pattern.compile(
          "\"(token|password|client-key-data|clientKeyData|privateKey)\"\\s*:\\s*\"(?:[^\"\\\\]|\\\\.)*\"");

  /** A Secret's maps of values. */
  private static final Pattern SECRET_MAP =
      Pattern.compile("\"(data|stringData)\"\\s*:\\s*\\{[^{}]*\\}");
}
