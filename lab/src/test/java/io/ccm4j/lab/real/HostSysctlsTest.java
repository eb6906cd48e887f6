package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kernel flags a real kubelet writes are put back, also by the run after a killed one. */
class HostSysctlsTest {

  @TempDir Path temp;

  private Path proc(String overcommit, String panic, String panicOnOops) throws Exception {
    Path proc = temp.resolve("proc");
    Files.createDirectories(proc.resolve("vm"));
    Files.createDirectories(proc.resolve("kernel"));
    Files.writeString(proc.resolve("vm/overcommit_memory"), overcommit + "\n");
    Files.writeString(proc.resolve("kernel/panic"), panic + "\n");
    Files.writeString(proc.resolve("kernel/panic_on_oops"), panicOnOops + "\n");
    return proc;
  }

  @Test
  void whatTheKubeletWroteIsPutBack() throws Exception {
    Path proc = proc("0", "1", "0");
    HostSysctls sysctls = new HostSysctls(temp.resolve("saved"), proc);
    sysctls.save();
    // what a kubelet with protectKernelDefaults: false writes
    proc("1", "10", "1");

    sysctls.restore();

    assertThat(Files.readString(proc.resolve("vm/overcommit_memory")).strip()).isEqualTo("0");
    assertThat(Files.readString(proc.resolve("kernel/panic")).strip()).isEqualTo("1");
    assertThat(Files.readString(proc.resolve("kernel/panic_on_oops")).strip()).isEqualTo("0");
    assertThat(temp.resolve("saved")).doesNotExist();
  }

  @Test
  void aKilledRunsSavedValuesArePutBackByTheNext() throws Exception {
    Path proc = proc("0", "1", "0");
    new HostSysctls(temp.resolve("saved"), proc).save();
    proc("1", "10", "1");

    new HostSysctls(temp.resolve("saved"), proc).restoreLeftover();

    assertThat(Files.readString(proc.resolve("kernel/panic")).strip()).isEqualTo("1");
  }

  @Test
  void nothingSavedChangesNothing() throws Exception {
    Path proc = proc("1", "10", "1");

    new HostSysctls(temp.resolve("saved"), proc).restore();

    assertThat(Files.readString(proc.resolve("kernel/panic")).strip()).isEqualTo("10");
  }
}
