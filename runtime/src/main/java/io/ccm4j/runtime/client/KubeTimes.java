package io.ccm4j.runtime.client;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Times as Kubernetes objects carry them (RFC 3339), read fast where a controller reads many. */
public final class KubeTimes {

  private KubeTimes() {}

  /**
   * An RFC 3339 time. The form the API server writes and ccm4j formats, {@code
   * 2026-11-27T05:13:32Z}, is read by its digits (a formatter's parse was most of encoding an
   * Event, and a twentieth of initialising a node); any other form by the formatter.
   *
   * @throws java.time.DateTimeException if {@code text} is no RFC 3339 time
   */
  public static Instant parse(String text) {
    if (text.length() == 20
        && text.charAt(4) == '-'
        && text.charAt(7) == '-'
        && text.charAt(10) == 'T'
        && text.charAt(13) == ':'
        && text.charAt(16) == ':'
        && text.charAt(19) == 'Z') {
      int year = digits(text, 0, 4);
      int month = digits(text, 5, 7);
      int day = digits(text, 8, 10);
      int hour = digits(text, 11, 13);
      int minute = digits(text, 14, 16);
      int second = digits(text, 17, 19);
      if ((year | month | day | hour | minute | second) >= 0) {
        return LocalDateTime.of(year, month, day, hour, minute, second).toInstant(ZoneOffset.UTC);
      }
    }
    return OffsetDateTime.parse(text).toInstant();
  }

  /** The number the decimal digits from {@code start} to {@code end} spell; -1 if one is not. */
  private static int digits(String text, int start, int end) {
    int value = 0;
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
