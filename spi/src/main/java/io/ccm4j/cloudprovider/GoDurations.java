package io.ccm4j.cloudprovider;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as Kubernetes flags and configs write them, read as Go's {@code time.ParseDuration}
 * reads them: {@code 15s}, {@code 1m30s}, {@code 500ms}, {@code 1.5h}, {@code .5s}, {@code 1500us}
 * ({@code µs} too), {@code 100ns}, {@code +15s}, {@code 0}. A negative one, which Go reads, is
 * refused here: no duration a controller takes may be.
 */
public final class GoDurations {

  private static final Pattern PART =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|\u03bcs|ms|h|m|s)");

  private GoDurations() {}

  /**
   * @throws IllegalArgumentException when {@code value} is not such a duration, or is negative; the
   *     message quotes it and gives examples
   */
  public static Duration parse(String value) {
    String text = value.trim();
    boolean negative = text.startsWith("-");
    String unsigned = negative || text.startsWith("+") ? text.substring(1) : text;
    if (unsigned.equals("0")) {
      return Duration.ZERO;
    }
    Matcher matcher = PART.matcher(unsigned);
    int position = 0;
    // Exact, as Go's integer arithmetic: its largest duration is exactly Long.MAX_VALUE ns.
    BigDecimal nanos = BigDecimal.ZERO;
    while (matcher.find() && matcher.start() == position) {
      BigDecimal amount = new BigDecimal(matcher.group(1));
      long unit =
          switch (matcher.group(2)) {
            case "h" -> 3_600_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "s" -> 1_000_000_000L;
            case "ms" -> 1_000_000L;
            case "ns" -> 1L;
            default -> 1_000L; // us, µs (the micro sign) and μs (Greek mu), as Go
          };
      nanos = nanos.add(amount.multiply(BigDecimal.valueOf(unit)));
      position = matcher.end();
    }
    if (position == 0 || position != unsigned.length()) {
      throw new IllegalArgumentException(
          "\"%s\" is not a duration (examples: 500ms, 15s, 1m30s)".formatted(value));
    }
    if (negative && nanos.signum() > 0) {
      throw new IllegalArgumentException(
          "\"%s\" is not a duration of 0 or more (examples: 500ms, 15s, 1m30s)".formatted(value));
    }
    // Go's time.Duration is an int64 of nanoseconds and refuses more ("invalid duration").
    BigDecimal whole = nanos.setScale(0, RoundingMode.DOWN);
    if (whole.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(
          "\"%s\" is longer than a duration can be (at most %s)"
              .formatted(value, format(Duration.ofNanos(Long.MAX_VALUE))));
    }
    return Duration.ofNanos(whole.longValueExact());
  }

  /**
   * A duration as Go's {@code time.Duration} prints it ({@code 1.5s}, {@code 2m0.5s}, {@code 3ms}).
   */
  public static String format(Duration duration) {
    long ns = duration.toNanos();
    if (ns == 0) {
      return "0s";
    }
    String sign = ns < 0 ? "-" : "";
    ns = Math.abs(ns);
    if (ns < 1_000) {
      return sign + ns + "ns";
    }
    if (ns < 1_000_000) {
      return sign + decimal(ns, 1_000) + "µs";
    }
    if (ns < 1_000_000_000) {
      return sign + decimal(ns, 1_000_000) + "ms";
    }
    long hours = ns / 3_600_000_000_000L;
    long minutes = ns / 60_000_000_000L % 60;
    String seconds = decimal(ns % 60_000_000_000L, 1_000_000_000) + "s";
    if (hours > 0) {
      return sign + hours + "h" + minutes + "m" + seconds;
    }
    return sign + (minutes > 0 ? minutes + "m" : "") + seconds;
  }

  private static String decimal(long value, long unit) {
    long whole = value / unit;
    long fraction = value % unit;
    if (fraction == 0) {
      return Long.toString(whole);
    }
    int digits = Long.toString(unit).length() - 1;
    String text = String.format("%0" + digits + "d", fraction).replaceAll("0+$", "");
    return whole + "." + text;
  }
}
