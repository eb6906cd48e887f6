package io.ccm4j.runtime.serving;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a scrape of {@code /metrics} or {@code /metrics/slis} answers in, read from its {@code
 * Accept} as Go's {@code expfmt.Negotiate} reads it for upstream's handlers: the text ({@link
 * MetricsText}) or Prometheus's delimited protobuf ({@link MetricsProtobuf}), and the name escaping
 * scheme the content type names.
 *
 * <p>The media ranges are taken in goautoneg's order (by quality, a range without {@code *} before
 * one with it); the first that is the protobuf or the text 0.0.4 decides the format, and the
 * escaping is the last {@code escaping} parameter of a known scheme on the ranges read up to it,
 * {@code underscores} without one. Passed over, as by Go: OpenMetrics ({@code
 * legacyregistry.Handler} leaves it off), {@code *}/{@code *}; and, unlike Go, the protobuf's
 * {@code text} and {@code compact-text} encodings, which the Prometheus client's writers lack.
 *
 * <p>The scheme changes only the content type: ccm4j's names are all of Prometheus's legacy
 * characters, which no scheme escapes (Go's {@code EscapeMetricFamily} leaves such a name as it
 * is).
 *
 * @param protobuf the delimited protobuf, else the text
 * @param escaping {@code underscores}, {@code allow-utf-8}, {@code dots} or {@code values}
 */
record MetricsFormat(boolean protobuf, String escaping) {

  /** Go's {@code model.NameEscapingScheme}, for a scrape that names no scheme. */
  private static final String DEFAULT_ESCAPING = "underscores";

  private static final Set<String> ESCAPINGS =
      Set.of("allow-utf-8", DEFAULT_ESCAPING, "dots", "values");

  private static final String PROTOBUF_TYPE = "application/vnd.google.protobuf";
  private static final String PROTOBUF_MESSAGE = "io.prometheus.client.MetricFamily";
  private static final String TEXT_VERSION = "0.0.4";

  /** A number Go's {@code strconv.ParseFloat} reads (hexadecimal ones aside). */
  private static final Pattern GO_FLOAT =
      Pattern.compile(
          "[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity)|(?i:nan)");

  /**
   * The format for {@code accept}.
   *
   * @param accept the request's first {@code Accept} header, null when it has none
   * @param protobufWritable whether the protobuf writer is on the class path; without it every
   *     scrape gets the text
   */
  static MetricsFormat negotiate(String accept, boolean protobufWritable) {
    String escaping = DEFAULT_ESCAPING;
    for (MediaRange range : MediaRange.parseAccept(accept == null ? "" : accept)) {
      String asked = range.parameters().getOrDefault("escaping", "");
      if (ESCAPINGS.contains(asked)) {
        escaping = asked;
      }
      if (protobufWritable
          && range.is(PROTOBUF_TYPE)
          && PROTOBUF_MESSAGE.equals(range.parameters().get("proto"))
          && "delimited".equals(range.parameters().get("encoding"))) {
        return new MetricsFormat(true, escaping);
      }
      String version = range.parameters().getOrDefault("version", "");
      if (range.is("text/plain") && (version.isEmpty() || version.equals(TEXT_VERSION))) {
        return new MetricsFormat(false, escaping);
      }
    }
    return new MetricsFormat(false, escaping);
  }

  /** The answer's {@code Content-Type}, as Go's {@code Format} spells it. */
  String contentType() {
    return (protobuf ? MetricsProtobuf.CONTENT_TYPE : MetricsText.CONTENT_TYPE)
        + "; escaping="
        + escaping;
  }

  /** One clause of an {@code Accept} header, as goautoneg's {@code Accept}. */
  private record MediaRange(
      String type, String subtype, float quality, Map<String, String> parameters) {

    boolean is(String mediaType) {
      return mediaType.equals(type + "/" + subtype);
    }

    boolean wildcardType() {
      return type.equals("*");
    }

    boolean wildcardSubtype() {
      return subtype.equals("*");
    }

    /**
     * goautoneg's {@code ParseAccept}, step for step: clauses split at commas and parameters at
     * semicolons, only spaces trimmed; a clause that is not {@code type/subtype} (or {@code *}) and
     * a parameter that is not {@code name=value} left out; {@code q} read as a 32-bit float, 0 if
     * it is none.
     */
    static List<MediaRange> parseAccept(String header) {
      List<MediaRange> ranges = new ArrayList<>();
      String remaining = header;
      while (!remaining.isEmpty()) {
        String[] clause = nextSplit(remaining, ',');
        remaining = clause[1];
        String[] typeAndParameters = nextSplit(trimSpaces(clause[0]), ';');
        String[] typeAndRest = nextSplit(typeAndParameters[0], '/');
        String type = trimSpaces(typeAndRest[0]);
        String subtype;
        if (typeAndRest[1].isEmpty()) {
          if (!type.equals("*")) {
            continue;
          }
          subtype = "*";
        } else {
          String[] subtypeAndRest = nextSplit(typeAndRest[1], '/');
          if (!subtypeAndRest[1].isEmpty()) {
            continue;
          }
          subtype = trimSpaces(subtypeAndRest[0]);
        }
        float quality = 1;
        Map<String, String> parameters = new HashMap<>();
        String rest = typeAndParameters[1];
        while (!rest.isEmpty()) {
          String[] parameter = nextSplit(rest, ';');
          rest = parameter[1];
          String[] nameAndRest = nextSplit(parameter[0], '=');
          if (nameAndRest[1].isEmpty()) {
            continue;
          }
          String[] valueAndRest = nextSplit(nameAndRest[1], '=');
          if (!valueAndRest[1].isEmpty()) {
            continue;
          }
          String name = trimSpaces(nameAndRest[0]);
          if (name.equals("q")) {
            quality = goFloat32(valueAndRest[0]);
          } else {
            parameters.put(name, trimSpaces(valueAndRest[0]));
          }
        }
        ranges.add(new MediaRange(type, subtype, quality, parameters));
      }
      sortAsGo(ranges);
      return ranges;
    }

    /** goautoneg's {@code nextSplitElement}: the text before the first separator, and after it. */
    private static String[] nextSplit(String text, char separator) {
      int at = text.indexOf(separator);
      return at < 0
          ? new String[] {text, ""}
          : new String[] {text.substring(0, at), text.substring(at + 1)};
    }

    /**
     * goautoneg's order through Go's {@code sort.Sort}, which sorts up to 12 ranges by insertion.
     * Its comparison is no total order (a range without {@code *} comes before one with it whatever
     * their qualities), so the insertion's swaps are what decide, and they are repeated here rather
     * than approximated by a stable sort on quality. A longer {@code Accept} (Go sorts it by
     * pattern-defeating quicksort) may be ordered otherwise where its ranges tie.
     */
    private static void sortAsGo(List<MediaRange> ranges) {
      for (int i = 1; i < ranges.size(); i++) {
        for (int j = i; j > 0 && before(ranges.get(j), ranges.get(j - 1)); j--) {
          ranges.set(j - 1, ranges.set(j, ranges.get(j - 1)));
        }
      }
    }

    /** goautoneg's {@code acceptSlice.Less}. */
    private static boolean before(MediaRange a, MediaRange b) {
      return a.quality > b.quality
          || (!a.wildcardType() && b.wildcardType())
          || (!a.wildcardSubtype() && b.wildcardSubtype());
    }

    /** Go's {@code strconv.ParseFloat(s, 32)}, its error dropped as goautoneg drops it. */
    private static float goFloat32(String text) {
      if (!GO_FLOAT.matcher(text).matches()) {
        return 0;
      }
      String lower = text.toLowerCase(Locale.ROOT);
      if (lower.endsWith("nan")) {
        return Float.NaN;
      }
      if (lower.endsWith("inf") || lower.endsWith("infinity")) {
        return lower.startsWith("-") ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
      }
      return Float.parseFloat(text);
    }

    /** Go's {@code strings.TrimFunc} with goautoneg's cut set: spaces only, not tabs. */
    private static String trimSpaces(String text) {
      int start = 0;
      int end = text.length();
      while (start < end && text.charAt(start) == ' ') {
        start++;
      }
      while (end > start && text.charAt(end - 1) == ' ') {
        end--;
      }
      return text.substring(start, end);
    }
  }
}
