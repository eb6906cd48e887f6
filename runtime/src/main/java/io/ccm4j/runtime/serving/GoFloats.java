package io.ccm4j.runtime.serving;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * A number as Go's Prometheus client writes it ({@code expfmt}'s {@code writeFloat}: {@code
 * strconv.FormatFloat(f, 'g', -1, 64)}): the shortest digits that read back as the same double,
 * with an exponent ({@code 1e-08}, {@code 1.234567e+06}) below 10^-4 and from 10^6 up, and {@code
 * +Inf}, {@code -Inf}, {@code NaN}. Java writes {@code 1.0}, {@code 1.0E-8} and {@code 1234567.0}.
 */
final class GoFloats {

  private static final MathContext ONE_DIGIT = new MathContext(1);

  private GoFloats() {}

  /** A number the Java writer wrote ({@code 1.0}, {@code +Inf}, {@code 7}), written as Go does. */
  static String format(String javaText) {
    return switch (javaText) {
      case "+Inf", "-Inf", "NaN" -> javaText;
      default -> format(Double.parseDouble(javaText));
    };
  }

  static String format(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "+Inf" : "-Inf";
    }
    if (value == 0) {
      return "0"; // -0 too, as Go's writer
    }
    // Java's Double.toString has the shortest digits that read back as the same double, as Go's,
    // but never fewer than two: 4.9E-324 where one digit, 5e-324, reads back too.
    BigDecimal shortest = new BigDecimal(Double.toString(value)).stripTrailingZeros();
    if (shortest.precision() == 2) {
      BigDecimal oneDigit = shortest.round(ONE_DIGIT);
      if (oneDigit.doubleValue() == value) {
        shortest = oneDigit.stripTrailingZeros();
      }
    }
    int exponent = shortest.precision() - shortest.scale() - 1;
    if (exponent >= -4 && exponent < 6) {
      return shortest.toPlainString();
    }
    String digits = shortest.unscaledValue().abs().toString();
    StringBuilder text = new StringBuilder();
    if (value < 0) {
      text.append('-');
    }
    text.append(digits.charAt(0));
    if (digits.length() > 1) {
      text.append('.').append(digits, 1, digits.length());
    }
    text.append(exponent < 0 ? "e-" : "e+");
    int magnitude = Math.abs(exponent);
    if (magnitude < 10) {
      text.append('0');
    }
    return text.append(magnitude).toString();
  }
}
