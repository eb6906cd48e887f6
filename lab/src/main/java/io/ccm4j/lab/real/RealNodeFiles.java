package io.ccm4j.lab.real;

import java.util.List;

/**
 * The configuration a real node of the lab runs with: its containerd's, its kubelet's and the
 * kubeconfig that reaches the API server through the cluster network's relay.
 */
final class RealNodeFiles {

  /** The cluster network's bridge address: where the nodes reach the API server (port 6443). */
  static final String GATEWAY = "10.77.0.1";

  /** The sandbox image containerd starts every pod with; the lab imports its own. */
  static final String PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

  /** The lab's HTTP server image (busybox httpd). */
  static final String BUSYBOX_IMAGE = "ccm4j.local/busybox:lab";

  private RealNodeFiles() {}

  /**
   * containerd 1.6, config version 2: its own paths in the node's private {@code /run} and {@code
   * /var/lib}, no debug or metrics listeners, overlayfs, runc with cgroupfs, the lab's pause image,
   * CNI configuration in the node's {@code /etc/cni/net.d} (an overlay of its own). {@code
   * restrict_oom_score_adj}: root here may lack CAP_SYS_RESOURCE, and runc then fails every sandbox
   * ("can't get final child's PID from pipe") when it writes the kubelet's negative oom_score_adj.
   */
  static String containerdConfig() {
    return """
        version = 2
        root = "/var/lib/containerd"
        state = "/run/containerd"
        [grpc]
          address = "/run/containerd/containerd.sock"
        [ttrpc]
          address = ""
        [debug]
          address = ""
        [metrics]
          address = ""
        [plugins."io.containerd.grpc.v1.cri"]
          sandbox_image = "%s"
          restrict_oom_score_adj = true
          [plugins."io.containerd.grpc.v1.cri".cni]
            bin_dir = "/usr/lib/cni"
            conf_dir = "/etc/cni/net.d"
          [plugins."io.containerd.grpc.v1.cri".containerd]
            snapshotter = "overlayfs"
            default_runtime_name = "runc"
            [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
              runtime_type = "io.containerd.runc.v2"
              [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
                SystemdCgroup = false
        """
        .formatted(PAUSE_IMAGE);
  }

  /** The cgroup (in every hierarchy) under which a node's kubelet puts its pods. */
  static String cgroupRoot(String node) {
    return "ccm4j-lab-" + node;
  }

  /**
   * The kubelet's configuration: cgroup v1 accepted, the cgroupfs driver under the node's own
   * cgroup root (several kubelets share this machine's cgroups), no iptables chains, the kernel
   * flags it wants written rather than refused (the lab restores them), no anonymous access and no
   * read-only port; the kubelet's API on the node's address, inside the lab's namespaces only.
   */
  static String kubeletConfig(String node) {
    return """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        failCgroupV1: false
        cgroupDriver: cgroupfs
        cgroupRoot: /%s
        containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
        makeIPTablesUtilChains: false
        protectKernelDefaults: false
        failSwapOn: false
        readOnlyPort: 0
        healthzBindAddress: 127.0.0.1
        authentication:
          anonymous: {enabled: false}
          webhook: {enabled: false}
        authorization:
          mode: AlwaysAllow
        """
        .formatted(cgroupRoot(node));
  }

  /**
   * The admin kubeconfig with the API server at the relay's address; the serving certificate is
   * checked against the name {@code localhost}, which it carries.
   */
  static String kubeconfig(String adminKubeconfig) {
    String rewritten =
        adminKubeconfig.replaceFirst(
            "(?m)^(\\s*)server: https://127\\.0\\.0\\.1:\\d+$",
            "$1server: https://" + GATEWAY + ":6443\n$1tls-server-name: localhost");
    if (rewritten.equals(adminKubeconfig)) {
      throw new IllegalArgumentException("the admin kubeconfig names no server on 127.0.0.1");
    }
    return rewritten;
  }

  /** The extra kubelet flags of a control-plane node: registered tainted, as kubeadm does. */
  static List<String> controlPlaneKubeletFlags() {
    return List.of("--register-with-taints=node-role.kubernetes.io/control-plane:NoSchedule");
  }
}
