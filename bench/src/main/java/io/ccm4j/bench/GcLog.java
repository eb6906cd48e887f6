package io.ccm4j.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM's peak heap read from its garbage collection log ({@code -Xlog:gc:file=...}): the heap in
 * use just before each collection, which is where it peaks. The manager does no work for it, where
 * reading its {@code /metrics} would have it render them (and answer over TLS) while measured.
 */
final class GcLog {

  /** A collection's heap before and after, and the heap's size: {@code 85M->40M(120M)}. */
  private static final Pattern COLLECTION =
      Pattern.compile("(\\d+)([KMG])->\\d+[KMG]\\(\\d+[KMG]\\)");

  private GcLog() {}

  /** The option that has a JVM write the log {@link #peakHeapMiB} reads. */
  static String jvmOption(Path log) {
    return "-Xlog:gc:file=" + log;
  }

  /** The most heap in use before any collection the log shows, in MiB; NaN without any. */
  static double peakHeapMiB(Path log) {
    try {
      return peakHeapMiB(Files.readAllLines(log));
    } catch (NoSuchFileException e) {
      return Double.NaN;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static double peakHeapMiB(List<String> lines) {
    double peak = Double.NaN;
    for (String line : lines) {
      Matcher collection = COLLECTION.matcher(line);
      if (collection.find()) {
        double before = mebibytes(Long.parseLong(collection.group(1)), collection.group(2));
        peak = Double.isNaN(peak) ? before : Math.max(peak, before);
      }
    }
    return peak;
  }

  private static double mebibytes(long value, String unit) {
    return switch (unit) {
      case "K" -> value / 1024.0;
      case "G" -> value * 1024.0;
      default -> value;
    };
  }
}
