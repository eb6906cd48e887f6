package io.ccm4j.bench;

import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A heap size as the JVM's {@code -Xmx} takes it ({@code 256m}, {@code 1g}, {@code 524288k}),
 * checked when the flags are read rather than by the manager's JVM refusing to start once a control
 * plane and the peers before it have run.
 */
public final class HeapSizeConverter implements ITypeConverter<String> {

  private static final Pattern SIZE = Pattern.compile("[1-9][0-9]*[kKmMgGtT]?");

  @Override
  public String convert(String value) {
    if (!SIZE.matcher(value).matches()) {
      throw new TypeConversionException(
          "'%s' is not a heap size as -Xmx takes it (examples: 256m, 1g)".formatted(value));
    }
    return value;
  }
}
