package io.ccm4j.tck;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Label values as the API server checks them (apimachinery's {@code IsValidLabelValue}): empty, or
 * at most 63 letters, digits, '-', '_' and '.', beginning and ending with a letter or digit.
 */
final class LabelValues {

  static final int MAX_LENGTH = 63;

  private static final Pattern VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  private LabelValues() {}

  /** What is wrong with {@code value} as a label value, or empty when nothing is. */
  static Optional<String> problem(String value) {
    if (value.length() > MAX_LENGTH) {
      return Optional.of("%d characters, more than %d".formatted(value.length(), MAX_LENGTH));
    }
    if (!VALUE.matcher(value).matches()) {
      return Optional.of(
          "not only letters, digits, '-', '_' and '.', beginning and ending with a letter or"
              + " digit");
    }
    return Optional.empty();
  }
}
