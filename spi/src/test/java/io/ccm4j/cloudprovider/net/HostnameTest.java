package io.ccm4j.cloudprovider.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostnameTest {

  @TempDir Path dir;

  @Test
  void theKernelsNameWithoutItsNewline() throws Exception {
    Path kernel = Files.writeString(dir.resolve("hostname"), "cp-0\n");

    assertThat(Hostname.of(kernel, Map.of("HOSTNAME", "from-env")::get)).isEqualTo("cp-0");
  }

  @Test
  void withoutTheKernelsFileTheEnvironmentsName() {
    assertThat(Hostname.of(dir.resolve("missing"), Map.of("HOSTNAME", " pod-7 ")::get))
        .isEqualTo("pod-7");
  }

  @Test
  void withNeitherTheJdksNameAndNeverNothing() {
    assertThat(Hostname.of(dir.resolve("missing"), name -> null)).isNotBlank();
  }

  @Test
  void onLinuxItIsTheKernelsName() throws Exception {
    Path kernel = Path.of("/proc/sys/kernel/hostname");
    if (Files.isReadable(kernel)) {
      assertThat(Hostname.get()).isEqualTo(Files.readString(kernel).strip());
    }
  }
}
