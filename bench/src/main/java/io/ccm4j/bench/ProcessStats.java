package io.ccm4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/** CPU time and peak memory of a running process, from Linux's /proc. */
final class ProcessStats {

  /** Linux's USER_HZ: the unit of /proc/[pid]/stat's times on every architecture Linux runs. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcessStats() {}

  /** User plus system CPU seconds the process has used so far (NaN once it is gone). */
  static double cpuSeconds(long pid) {
    try {
      return statCpuSeconds(Files.readString(Path.of("/proc/" + pid + "/stat")));
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /**
   * CPU seconds each group of the process's threads has used since it started, most first: threads
   * are grouped by name without their number ({@code C1 CompilerThre}, {@code ccm4j-api-call-}:
   * Linux keeps 15 characters of a name). Empty once the process is gone.
   */
  static Map<String, Double> cpuSecondsByThreadGroup(long pid) {
    Map<String, Double> groups = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          double seconds = statCpuSeconds(Files.readString(task.resolve("stat")));
          groups.merge(threadGroup(name), seconds, Double::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    Map<String, Double> sorted = new LinkedHashMap<>();
    groups.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(entry -> sorted.put(entry.getKey(), entry.getValue()));
    return sorted;
  }

  /** A thread's name without its number: {@code worker-12} and {@code worker-3} are one group. */
  static String threadGroup(String name) {
    String group = name.replaceAll("[-#_ ]?\\d+$", "");
    return group.isEmpty() ? name : group;
  }

  private static double statCpuSeconds(String stat) {
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
  }

  /** VmHWM: the most resident memory the process has used, in KiB (0 once it is gone). */
  static long peakRssKiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("\\D+", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone
    }
    return 0;
  }
}
