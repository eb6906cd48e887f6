package io.ccm4j.app.options;

import java.util.ArrayList;
import java.util.List;

/**
 * A list flag's value as upstream's flag parser (pflag's string slice) reads it: one line of CSV,
 * so {@code "/metrics"} is the field {@code /metrics} and {@code "a,b"} one field; each occurrence
 * of the flag adds its fields. A quote inside an unquoted field is an error, as Go's {@code
 * encoding/csv} has it.
 */
public final class GoCsv {

  private GoCsv() {}

  /**
   * The fields of every occurrence of {@code flag}, in order.
   *
   * @throws IllegalArgumentException naming the flag and the value it cannot read
   */
  public static List<String> fields(String flag, List<String> occurrences) {
    List<String> fields = new ArrayList<>();
    for (String value : occurrences) {
      try {
        fields.addAll(fields(value));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "%s: cannot read '%s' as a comma-separated list: %s"
                .formatted(flag, value, e.getMessage()));
      }
    }
    return fields;
  }

  /** The fields of one value; none for the empty value. */
  static List<String> fields(String value) {
    List<String> fields = new ArrayList<>();
    if (value.isEmpty()) {
      return fields;
    }
    int i = 0;
    while (true) {
      StringBuilder field = new StringBuilder();
      if (i < value.length() && value.charAt(i) == '"') {
        int column = i + 1;
        i++;
        while (true) {
          if (i >= value.length()) {
            throw new IllegalArgumentException(
                "extraneous or missing \" in quoted-field (column %d)".formatted(column));
          }
          char c = value.charAt(i);
          if (c == '"') {
            if (i + 1 < value.length() && value.charAt(i + 1) == '"') {
              field.append('"');
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field.append(c);
          i++;
        }
        if (i < value.length() && value.charAt(i) != ',') {
          throw new IllegalArgumentException(
              "extraneous or missing \" in quoted-field (column %d)".formatted(i + 1));
        }
      } else {
        while (i < value.length() && value.charAt(i) != ',') {
          if (value.charAt(i) == '"') {
            throw new IllegalArgumentException(
                "bare \" in non-quoted field (column %d)".formatted(i + 1));
          }
          field.append(value.charAt(i));
          i++;
        }
      }
      fields.add(field.toString());
      if (i >= value.length()) {
        return fields;
      }
      i++; // the comma
    }
  }
}
