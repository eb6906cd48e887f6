package io.ccm4j.lab.real;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The lab's CNI on real nodes, {@code ccm4j-lab-cni}: a DaemonSet of its own image ({@code
 * ccm4j.local/cni:lab}: busybox, the control plane's kubectl and {@code cni-agent.sh}, written by
 * {@code node-images.sh} and imported into every node's containerd) on the host network, tolerating
 * every taint as CNIs do. Its agent writes the node's {@code /etc/cni/net.d/10-ccm4j-lab.conflist}
 * (Debian's containernetworking-plugins: bridge {@code cni0} with host-local addresses, portmap)
 * only once the CCM has initialised its Node (provider ID, no uninitialized taint, an InternalIP)
 * and, when the CCM allocates node CIDRs, the Node has its {@code spec.podCIDR}: as real CNIs wait.
 * Then the kubelet reports NetworkReady and the node becomes Ready. A CCM pod without the host
 * network therefore never starts (the {@code pod-network} deadlock).
 *
 * <p>A shell script and kubectl rather than a JVM: it starts in well under a second on the lab's
 * busy cores (ccm4j's JVM took 37 s there), checks the API server's certificate (busybox's wget
 * does not), and needs nothing but what the lab already has.
 */
final class RealCni {

  /** The agent's image, written by {@code node-images.sh}. */
  static final String IMAGE = "ccm4j.local/cni:lab";

  static final String NAME = "ccm4j-lab-cni";

  /** The configuration file in the node's {@code /etc/cni/net.d}. */
  static final String CONFLIST = "10-ccm4j-lab.conflist";

  /** The pod ranges when nobody allocates node CIDRs: {@code 10.244.<last octet>.0/24}. */
  static final String FROM_NODE_IP = "from-node-ip";

  /** The pod range is the Node's {@code spec.podCIDR} (the CCM allocates it). */
  static final String FROM_NODE = "node";

  private RealCni() {}

  /**
   * The agent's ServiceAccount, its right to read Nodes and the DaemonSet.
   *
   * @param podCidrFromNode whether the CCM allocates node CIDRs (the agent then waits for one)
   */
  static String manifest(boolean podCidrFromNode) {
    return """
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: %1$s, namespace: kube-system}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata: {name: %1$s}
        rules:
        - apiGroups: [""]
          resources: [nodes]
          verbs: [get, list, watch]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata: {name: %1$s}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: %1$s}
        subjects:
        - {kind: ServiceAccount, name: %1$s, namespace: kube-system}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: %1$s, namespace: kube-system}
        spec:
          selector:
            matchLabels: {app: %1$s}
          template:
            metadata:
              labels: {app: %1$s}
            spec:
              hostNetwork: true
              priorityClassName: system-node-critical
              serviceAccountName: %1$s
              terminationGracePeriodSeconds: 1
              # as CNIs do: every taint, the uninitialized and not-ready ones included
              tolerations:
              - operator: Exists
              containers:
              - name: agent
                image: %2$s
                imagePullPolicy: Never
                env:
                - name: NODE_NAME
                  valueFrom:
                    fieldRef: {fieldPath: spec.nodeName}
                - {name: POD_CIDR, value: %3$s}
                - {name: HOME, value: /tmp}
                # the API server on the node's loopback (a relay): the kubernetes Service's
                # ClusterIP needs kube-proxy, which needs the network this agent brings up
                - {name: KUBERNETES_SERVICE_HOST, value: "%4$s"}
                - {name: KUBERNETES_SERVICE_PORT, value: "%5$s"}
                volumeMounts:
                - {name: cni-net-d, mountPath: /host/etc/cni/net.d}
              volumes:
              - name: cni-net-d
                hostPath: {path: /etc/cni/net.d, type: DirectoryOrCreate}
        """
        .formatted(
            NAME,
            IMAGE,
            podCidrFromNode ? FROM_NODE : FROM_NODE_IP,
            RealCcmImage.API_SERVER_HOST,
            RealCcmImage.API_SERVER_PORT);
  }

  /** Applies the agent's objects. */
  static void apply(KubernetesClient admin, boolean podCidrFromNode) {
    for (HasMetadata object : objects(admin, podCidrFromNode)) {
      admin.resource(object).createOr(existing -> existing.update());
    }
  }

  static List<HasMetadata> objects(KubernetesClient client, boolean podCidrFromNode) {
    return client
        .load(new ByteArrayInputStream(manifest(podCidrFromNode).getBytes(StandardCharsets.UTF_8)))
        .items();
  }

  /**
   * The node's CNI configuration as the agent wrote it into the node's own {@code /etc} (an overlay
   * whose changes stay in the node's directory), and when; empty until it is written.
   */
  static Optional<Written> written(Path nodeDirectory) {
    Path file = nodeDirectory.resolve("etc").resolve("cni").resolve("net.d").resolve(CONFLIST);
    try {
      return Optional.of(
          new Written(Files.getLastModifiedTime(file).toInstant(), Files.readString(file), file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A node's CNI configuration. */
  record Written(Instant at, String conflist, Path file) {

    /** The pod subnet of its host-local ranges. */
    String subnet() {
      var matcher = java.util.regex.Pattern.compile("\"subnet\": \"([^\"]+)\"").matcher(conflist);
      return matcher.find() ? matcher.group(1) : "?";
    }
  }
}
