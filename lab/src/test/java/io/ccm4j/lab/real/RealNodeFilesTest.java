package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What a real node of the lab runs with, and why each setting is there. */
class RealNodeFilesTest {

  @Test
  void theKubeletAcceptsThisMachineAndLeavesItsFirewallAlone() {
    String config = RealNodeFiles.kubeletConfig("worker-1");

    assertThat(config.lines().map(String::strip))
        .contains(
            // cgroup v1 (a hybrid hierarchy) is refused by default since 1.35
            "failCgroupV1: false",
            "cgroupDriver: cgroupfs",
            // several kubelets on one machine: each its own cgroup root
            "cgroupRoot: /ccm4j-lab-worker-1",
            // else KUBE-IPTABLES-HINT, KUBE-FIREWALL, KUBE-KUBELET-CANARY chains
            "makeIPTablesUtilChains: false",
            // true refuses to start on this machine's kernel flags; the lab restores them
            "protectKernelDefaults: false",
            "readOnlyPort: 0",
            "containerRuntimeEndpoint: unix:///run/containerd/containerd.sock");
  }

  @Test
  void containerdRunsSandboxesWithoutRaisingTheirOomScore() {
    String config = RealNodeFiles.containerdConfig();

    assertThat(config.lines().map(String::strip))
        .contains(
            "restrict_oom_score_adj = true",
            "SystemdCgroup = false",
            "snapshotter = \"overlayfs\"",
            "sandbox_image = \"registry.k8s.io/pause:3.10\"",
            "conf_dir = \"/etc/cni/net.d\"",
            "address = \"/run/containerd/containerd.sock\"");
  }

  @Test
  void theKubeconfigReachesTheApiServerThroughTheRelayAndChecksItsCertificate() {
    String admin =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster:
            server: https://127.0.0.1:43210
            certificate-authority-data: Q0E=
        """;

    String node = RealNodeFiles.kubeconfig(admin);

    assertThat(node)
        .contains("    server: https://10.77.0.1:6443\n    tls-server-name: localhost\n")
        .contains("certificate-authority-data: Q0E=")
        .doesNotContain("127.0.0.1");
  }

  @Test
  void aKubeconfigWithoutALoopbackServerIsRefused() {
    assertThatThrownBy(() -> RealNodeFiles.kubeconfig("clusters: []\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the admin kubeconfig names no server on 127.0.0.1");
  }
}
