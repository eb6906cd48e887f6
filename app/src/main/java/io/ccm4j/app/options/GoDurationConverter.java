package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as Kubernetes flags write them, as Go reads them ({@link GoDurations}): {@code
 * 15s}, {@code 1m30s}, {@code 500ms}, {@code 5m}, {@code 1500us}, {@code +15s}; none negative.
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
          "'%s' is not a duration%s (examples: 15s, 1m30s, 500ms)"
              .formatted(value, value.strip().startsWith("-") ? " of 0 or more" : ""));
    }
  }
}
