package io.ccm4j.simulator.kubelet;

import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node as a kubelet started with {@code --cloud-provider=external} registers it.
 *
 * @param name the node name ({@code --hostname-override})
 * @param nodeIp the kubelet's {@code --node-ip} (one IP or a dual-stack pair), or null
 * @param labels {@code --node-labels}
 * @param taints {@code --register-with-taints}, besides the uninitialized taint every
 *     external-cloud kubelet adds
 * @param notReadyMessage when set, the kubelet registers and reports NotReady with this message
 *     (for example while its network plugin waits), until told otherwise
 */
public record NodeSpec(
    String name,
    String nodeIp,
    Map<String, String> labels,
    List<Taint> taints,
    String notReadyMessage) {

  public NodeSpec {
    Objects.requireNonNull(name, "name");
    labels = Map.copyOf(labels);
    taints = List.copyOf(taints);
  }

  public static NodeSpec named(String name) {
    return new NodeSpec(name, null, Map.of(), List.of(), null);
  }

  public NodeSpec withNodeIp(String ip) {
    return new NodeSpec(name, ip, labels, taints, notReadyMessage);
  }

  public NodeSpec withLabels(Map<String, String> extra) {
    return new NodeSpec(name, nodeIp, extra, taints, notReadyMessage);
  }

  public NodeSpec withTaints(List<Taint> extra) {
    return new NodeSpec(name, nodeIp, labels, extra, notReadyMessage);
  }

  public NodeSpec withNotReady(String message) {
    return new NodeSpec(name, nodeIp, labels, taints, message);
  }
}
