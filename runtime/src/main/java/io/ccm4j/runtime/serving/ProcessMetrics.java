package io.ccm4j.runtime.serving;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The process metrics every Prometheus client exports under the same names, upstream's manager too
 * (client_golang's process collector): {@code process_cpu_seconds_total}, {@code
 * process_start_time_seconds}, {@code process_open_fds}, {@code process_max_fds}, {@code
 * process_resident_memory_bytes} and {@code process_virtual_memory_bytes}. Dashboards and alerts
 * for any component read these (CPU, memory, restarts, file descriptors running out); Micrometer's
 * own process meters have other names and units ({@code process_cpu_usage}, {@code
 * process_cpu_time_ns_total}). The memory gauges read {@code /proc/self/status}, where there is
 * one.
 */
public final class ProcessMetrics implements MeterBinder {

  private static final Path STATUS = Path.of("/proc/self/status");

  @Override
  public void bindTo(MeterRegistry registry) {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9)
          .baseUnit("seconds")
          .description("Total user and system CPU time spent in seconds.")
          .register(registry);
    }
    long startMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
    Gauge.builder("process.start.time", () -> startMillis / 1000.0)
        .baseUnit("seconds")
        .description("Start time of the process since unix epoch in seconds.")
        .register(registry);
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
      Gauge.builder("process.open.fds", unix, UnixOperatingSystemMXBean::getOpenFileDescriptorCount)
          .description("Number of open file descriptors.")
          .register(registry);
      Gauge.builder("process.max.fds", unix, UnixOperatingSystemMXBean::getMaxFileDescriptorCount)
          .description("Maximum number of open file descriptors.")
          .register(registry);
    }
    if (Files.isReadable(STATUS)) {
      Gauge.builder("process.resident.memory", () -> statusBytes("VmRSS:"))
          .baseUnit("bytes")
          .description("Resident memory size in bytes.")
          .register(registry);
      Gauge.builder("process.virtual.memory", () -> statusBytes("VmSize:"))
          .baseUnit("bytes")
          .description("Virtual memory size in bytes.")
          .register(registry);
    }
  }

  /** A {@code kB} line of {@code /proc/self/status} in bytes; NaN when it cannot be read. */
  private static double statusBytes(String field) {
    try {
      return kilobytes(Files.readAllLines(STATUS), field).orElse(Double.NaN);
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  /** {@code VmRSS: 123 kB} → 125952. */
  static OptionalDouble kilobytes(List<String> status, String field) {
    for (String line : status) {
      if (line.startsWith(field)) {
        String[] parts = line.substring(field.length()).trim().split("\\s+");
        try {
          return OptionalDouble.of(Long.parseLong(parts[0]) * 1024.0);
        } catch (NumberFormatException e) {
          return OptionalDouble.empty();
        }
      }
    }
    return OptionalDouble.empty();
  }
}
