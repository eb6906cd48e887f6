package io.ccm4j.lab.real;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel flags a kubelet with {@code protectKernelDefaults: false} writes, host-wide (they are
 * not namespaced): saved to a file before the first kubelet starts, written back when the lab ends,
 * and by the next run when this one was killed.
 */
final class HostSysctls {

  private static final Logger log = LoggerFactory.getLogger(HostSysctls.class);

  /** vm.overcommit_memory, kernel.panic, kernel.panic_on_oops. */
  static final List<String> FLAGS =
      List.of("vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops");

  private final Path saved;
  private final Path proc;

  HostSysctls(Path saved) {
    this(saved, Path.of("/proc/sys"));
  }

  HostSysctls(Path saved, Path proc) {
    this.saved = saved;
    this.proc = proc;
  }

  void save() throws IOException {
    StringBuilder text = new StringBuilder();
    for (String flag : FLAGS) {
      text.append(flag)
          .append('=')
          .append(Files.readString(proc.resolve(flag)).strip())
          .append('\n');
    }
    Files.writeString(saved, text);
  }

  /** Writes the saved values back and forgets them; nothing when nothing was saved. */
  void restore() {
    if (!Files.exists(saved)) {
      return;
    }
    try {
      Map<String, String> values = new LinkedHashMap<>();
      for (String line : Files.readAllLines(saved)) {
        int eq = line.indexOf('=');
        if (eq > 0 && FLAGS.contains(line.substring(0, eq))) {
          values.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      for (Map.Entry<String, String> flag : values.entrySet()) {
        Path file = proc.resolve(flag.getKey());
        if (!read(file).equals(flag.getValue())) {
          Files.writeString(file, flag.getValue() + "\n");
          log.info("put back {} = {}", flag.getKey().replace('/', '.'), flag.getValue());
        }
      }
      Files.delete(saved);
    } catch (IOException e) {
      log.warn("cannot put back the kernel flags saved in {}: {}", saved, e.getMessage());
    }
  }

  /**
   * A flag's value, read in one call: a sysctl file reports its size as 0 and answers a read at a
   * later offset with nothing, so {@code Files.readString} sees "10" as "1".
   */
  private static String read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(4096), StandardCharsets.US_ASCII).strip();
    }
  }

  /** What a killed run saved and could not put back. */
  void restoreLeftover() {
    restore();
  }
}
