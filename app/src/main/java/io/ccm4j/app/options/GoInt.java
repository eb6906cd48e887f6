package io.ccm4j.app.options;

import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A whole-number flag's value as upstream's flag parser (pflag) reads its int and int32 flags, with
 * Go's {@code strconv.ParseInt(value, 0, ...)}: the base from the prefix ({@code 0x} 16, {@code 0o}
 * or a bare leading {@code 0} 8, {@code 0b} 2, else 10) and {@code _} between digits. So {@code
 * --kube-api-burst=010} is 8 here as there, not 10. klog's {@code -v} is read in base 10 and does
 * not use it.
 */
public final class GoInt implements ITypeConverter<Integer> {

  private static final Pattern DECIMAL = Pattern.compile("[0-9]+(_[0-9]+)*");
  private static final Pattern PREFIXED = Pattern.compile("_?[0-9a-fA-F]+(_[0-9a-fA-F]+)*");

  @Override
  public Integer convert(String value) {
    String text = value;
    String sign = "";
    if (text.startsWith("+") || text.startsWith("-")) {
      sign = text.startsWith("-") ? "-" : "";
      text = text.substring(1);
    }
    int radix = 10;
    Pattern syntax = DECIMAL;
    if (text.length() >= 2 && text.charAt(0) == '0') {
      switch (Character.toLowerCase(text.charAt(1))) {
        case 'x' -> radix = 16;
        case 'o' -> radix = 8;
        case 'b' -> radix = 2;
        default -> radix = 0;
      }
      if (radix != 0) {
        text = text.substring(2);
        syntax = PREFIXED;
      } else {
        radix = 8; // a leading 0: octal, as in Go
      }
    }
    if (!syntax.matcher(text).matches()) {
      throw notAnInt(value);
    }
    try {
      return Integer.parseInt(sign + text.replace("_", ""), radix);
    } catch (NumberFormatException e) {
      throw notAnInt(value);
    }
  }

  private static TypeConversionException notAnInt(String value) {
    return new TypeConversionException(
        "'%s' is not a whole number as Go reads it (10, 0x0a, 0o12, 012, 0b1010)".formatted(value));
  }
}
