package io.ccm4j.simulator.kubelet;

import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simulated kubelet: it registered its Node, renews its Lease in {@code kube-node-lease} and
 * posts its conditions, until told to stop heartbeating, to report NotReady, or to leave.
 */
public final class SimulatedKubelet {

  private static final Logger log = LoggerFactory.getLogger(SimulatedKubelet.class);
  private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

  /**
   * As the kubelet patches its status: conditions merge by type, so conditions other components own
   * (NetworkUnavailable, written by the route controller or a CNI) survive a status post.
   */
  private static final PatchContext STRATEGIC_MERGE = PatchContext.of(PatchType.STRATEGIC_MERGE);

  private final KubernetesClient client;
  private final String name;
  private final String nodeIp;
  private volatile boolean heartbeating;
  private volatile boolean ready = true;
  private volatile String readyMessage = KubeletObjects.READY_MESSAGE;
  ScheduledFuture<?> leaseRenewal;
  ScheduledFuture<?> statusUpdate;

  SimulatedKubelet(KubernetesClient client, NodeSpec spec, boolean heartbeating) {
    this.client = client;
    this.name = spec.name();
    this.nodeIp = spec.nodeIp();
    this.heartbeating = heartbeating;
    if (spec.notReadyMessage() != null) {
      this.ready = false;
      this.readyMessage = spec.notReadyMessage();
    }
  }

  public String nodeName() {
    return name;
  }

  /** The kubelet's {@code --node-ip} (one IP or a dual-stack pair), or null. */
  public String nodeIp() {
    return nodeIp;
  }

  public Node node() {
    return client.nodes().withName(name).get();
  }

  /** Like a kubelet that hangs or lost its network: neither Lease nor status is renewed. */
  public void stopHeartbeats() {
    heartbeating = false;
  }

  public void resumeHeartbeats() {
    heartbeating = true;
    renewLease();
    postStatus();
  }

  public boolean isHeartbeating() {
    return heartbeating;
  }

  /**
   * Posts Ready=True or Ready=False (KubeletNotReady) at once, and on every status update after.
   */
  public void setReady(boolean ready, String message) {
    this.ready = ready;
    this.readyMessage = message;
    postStatus();
  }

  /** Deletes its Node and Lease and stops. */
  public void leave() {
    heartbeating = false;
    cancel();
    client.leases().inNamespace(WellKnownNamespaces.KUBE_NODE_LEASE).withName(name).delete();
    client.nodes().withName(name).delete();
  }

  void cancel() {
    if (leaseRenewal != null) {
      leaseRenewal.cancel(false);
    }
    if (statusUpdate != null) {
      statusUpdate.cancel(false);
    }
  }

  void renewLease() {
    if (!heartbeating) {
      return;
    }
    try {
      String renewTime = ZonedDateTime.now(ZoneOffset.UTC).toString();
      client
          .leases()
          .inNamespace(WellKnownNamespaces.KUBE_NODE_LEASE)
          .withName(name)
          .patch(
              MERGE,
              client
                  .getKubernetesSerialization()
                  .asJson(Map.of("spec", Map.of("renewTime", microTime(renewTime)))));
    } catch (RuntimeException e) {
      // Any exception would end the periodic renewal for good: the node would go Unknown.
      log.warn("kubelet {}: cannot renew lease: {}", name, e.getMessage());
    }
  }

  void postStatus() {
    if (!heartbeating) {
      return;
    }
    try {
      var patch =
          Map.of("status", Map.of("conditions", KubeletObjects.conditions(ready, readyMessage)));
      client
          .nodes()
          .withName(name)
          .subresource("status")
          .patch(STRATEGIC_MERGE, client.getKubernetesSerialization().asJson(patch));
    } catch (RuntimeException e) {
      log.warn("kubelet {}: cannot post node status: {}", name, e.getMessage());
    }
  }

  /** MicroTime as the API writes it: RFC 3339 with microseconds. */
  private static String microTime(String zoned) {
    ZonedDateTime time = ZonedDateTime.parse(zoned);
    return java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX")
        .format(time);
  }
}
