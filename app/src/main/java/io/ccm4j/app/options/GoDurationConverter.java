package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as Kubernetes flags write them: {@code 15s}, {@code 1m30s}, {@code 500ms},
 * {@code 5m}.
 */
public final class GoDurationConverter implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    try {
      return GoDurations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(
          "'%s' is not a duration (examples: 15s, 1m30s, 500ms)".formatted(value));
    }
  }
}
