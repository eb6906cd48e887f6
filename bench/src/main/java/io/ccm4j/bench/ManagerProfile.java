package io.ccm4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where ccm4j's CPU and memory go in {@code bench node-init --profile}: the CPU seconds of its
 * threads by group (the JIT's and the collector's included), the Java Flight Recorder's samples of
 * its Java code by what they were doing, and its native memory by area (NMT) at the last untaint.
 *
 * @param threadCpu CPU seconds by thread group, since the process started, most first
 * @param samples JFR execution samples of Java code
 * @param code what the samples were doing: a sample counts for every kind of code on its stack, so
 *     the shares add up to more than 100 %
 * @param memory committed MiB by NMT area, most first
 */
record ManagerProfile(
    Map<String, Double> threadCpu, int samples, List<Share> code, List<Area> memory) {

  /** A kind of code and the samples with it on the stack. */
  record Share(String what, int samples, double percent) {}

  /** An area of the JVM's memory and what of it is committed. */
  record Area(String what, double committedMiB) {}

  /** Kinds of code, by the packages on a sample's stack. */
  static final Map<String, List<String>> KINDS = kinds();

  private static final Pattern NMT_AREA =
      Pattern.compile("^-\\s+(.+?) \\(reserved=\\d+KB, committed=(\\d+)KB", Pattern.MULTILINE);

  private static Map<String, List<String>> kinds() {
    Map<String, List<String>> kinds = new LinkedHashMap<>();
    kinds.put("HTTP (OkHttp, Okio)", List.of("okhttp3.", "okio."));
    kinds.put("fabric8 client and informers", List.of("io.fabric8."));
    kinds.put("ccm4j (controllers, workqueue, sim cloud)", List.of("io.ccm4j."));
    kinds.put("JSON (Jackson)", List.of("com.fasterxml.jackson."));
    kinds.put(
        "TLS (JDK, native provider)",
        List.of("sun.security.", "com.sun.crypto.", "com.amazon.corretto."));
    kinds.put("logging", List.of("ch.qos.logback.", "org.slf4j."));
    kinds.put("metrics", List.of("io.micrometer.", "io.prometheus."));
    return kinds;
  }

  /** The name of the manager's recording. */
  static final String RECORDING = "ccm4j-profile";

  /** What makes a manager's JVM recordable: a JFR recording with the profiling settings, NMT. */
  static List<String> jvmOptions() {
    return List.of(
        "-XX:StartFlightRecording=name=" + RECORDING + ",settings=profile",
        "-XX:NativeMemoryTracking=summary");
  }

  /**
   * The jcmd commands that take a running manager's recording to {@code jfr} and its native memory
   * summary (not at exit: a JVM that writes its class-data archive as it exits writes no
   * recording).
   */
  static List<List<String>> jcmdCommands(Path jfr) {
    return List.of(
        List.of("JFR.dump", "name=" + RECORDING, "filename=" + jfr),
        List.of("VM.native_memory", "summary"));
  }

  /** The profile from a recording, the thread CPU and NMT's summary taken at the last untaint. */
  static ManagerProfile read(Path jfr, Map<String, Double> threadCpu, String nmtSummary)
      throws IOException {
    List<List<String>> stacks = new ArrayList<>();
    for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
      if (event.getEventType().getName().equals("jdk.ExecutionSample")
          && event.getStackTrace() != null) {
        stacks.add(
            event.getStackTrace().getFrames().stream()
                .map(RecordedFrame::getMethod)
                .map(method -> method.getType().getName())
                .toList());
      }
    }
    return new ManagerProfile(threadCpu, stacks.size(), classify(stacks), memory(nmtSummary));
  }

  /** The share of the stacks (class names, innermost first) each kind of code is on, most first. */
  static List<Share> classify(List<List<String>> stacks) {
    List<Share> shares = new ArrayList<>();
    KINDS.forEach(
        (what, packages) -> {
          int count =
              (int)
                  stacks.stream()
                      .filter(
                          stack ->
                              stack.stream()
                                  .anyMatch(type -> packages.stream().anyMatch(type::startsWith)))
                      .count();
          shares.add(new Share(what, count, stacks.isEmpty() ? 0 : 100.0 * count / stacks.size()));
        });
    shares.sort(Comparator.comparingInt(Share::samples).reversed());
    return shares;
  }

  /** NMT's areas of at least 1 MiB committed, most first. */
  static List<Area> memory(String nmtSummary) {
    List<Area> areas = new ArrayList<>();
    Matcher matcher = NMT_AREA.matcher(nmtSummary);
    while (matcher.find()) {
      double mib = Long.parseLong(matcher.group(2)) / 1024.0;
      if (mib >= 1) {
        areas.add(new Area(matcher.group(1).strip(), mib));
      }
    }
    areas.sort(Comparator.comparingDouble(Area::committedMiB).reversed());
    return areas;
  }

  void print(PrintStream out) {
    out.println();
    out.println("Where ccm4j's CPU goes (--profile):");
    out.println("  CPU seconds by thread group, since the process started:");
    threadCpu.entrySet().stream()
        .limit(10)
        .forEach(
            entry ->
                out.printf(Locale.ROOT, "    %-24s %6.1f%n", entry.getKey(), entry.getValue()));
    out.printf(
        Locale.ROOT,
        "  Java code in %d JFR samples (a sample counts for each kind on its stack):%n",
        samples);
    code.forEach(
        share ->
            out.printf(
                Locale.ROOT,
                "    %-42s %5.1f %%  (%d)%n",
                share.what(),
                share.percent(),
                share.samples()));
    out.println("  Memory committed at the last untaint (NMT, MiB; RSS counts what is touched):");
    memory.forEach(
        area -> out.printf(Locale.ROOT, "    %-24s %6.1f%n", area.what(), area.committedMiB()));
  }
}
