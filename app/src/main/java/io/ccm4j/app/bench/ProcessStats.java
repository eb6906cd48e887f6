package io.ccm4j.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and peak memory of a running process, from Linux's /proc. */
final class ProcessStats {

  /** Linux's USER_HZ: the unit of /proc/[pid]/stat's times on every architecture Linux runs. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcessStats() {}

  /** User plus system CPU seconds the process has used so far (NaN once it is gone). */
  static double cpuSeconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
      return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
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
