package io.ccm4j.app.options;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as Kubernetes flags write them: {@code 15s}, {@code 1m30s}, {@code 500ms},
 * {@code 5m}.
 */
public final class GoDurationConverter implements ITypeConverter<Duration> {

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(h|ms|m|s)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    String text = value.trim();
    if (text.equals("0")) {
      return Duration.ZERO;
    }
    Matcher matcher = PART.matcher(text);
    int position = 0;
    double nanos = 0;
    while (matcher.find() && matcher.start() == position) {
      double amount = Double.parseDouble(matcher.group(1));
      nanos +=
          amount
              * switch (matcher.group(2)) {
                case "h" -> 3.6e12;
                case "m" -> 6e10;
                case "s" -> 1e9;
                default -> 1e6;
              };
      position = matcher.end();
    }
    if (position == 0 || position != text.length()) {
      throw new TypeConversionException(
          "'%s' is not a duration (examples: 15s, 1m30s, 500ms)".formatted(value));
    }
    return Duration.ofNanos((long) nanos);
  }
}
