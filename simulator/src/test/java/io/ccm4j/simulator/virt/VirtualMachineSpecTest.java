package io.ccm4j.simulator.virt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VirtualMachineSpecTest {

  private static final VirtualMachineSpec WORKER =
      VirtualMachineSpec.worker("vm-1", "tenant", "infra-1", "127.0.0.1");

  @Test
  void aHostnameIsADnsLabelAsKubeVirtRequires() {
    assertThat(WORKER.withHostname("worker-1").hostname()).isEqualTo("worker-1");
    assertThatThrownBy(() -> WORKER.withHostname("worker-1.example.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a DNS label");
  }
}
