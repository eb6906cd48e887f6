package io.ccm4j.simulator.kubelet;

import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Many simulated kubelets sharing two timer threads. Each registers its Node exactly as a kubelet
 * with {@code --cloud-provider=external} does (uninitialized taint, provided-node-ip annotation,
 * capacity, node info, Hostname address, conditions, no provider ID), creates its Lease, then
 * renews the Lease every {@code leaseRenewInterval} (10 s) and posts its status every {@code
 * statusUpdateInterval} (1 min), as kubelets do since NodeLease.
 */
public final class KubeletFleet implements AutoCloseable {

  /**
   * @param heartbeats whether kubelets renew Leases and post status at all (benchmarks of
   *     registration turn it off)
   */
  public record Options(
      Duration leaseRenewInterval, Duration statusUpdateInterval, boolean heartbeats) {

    public static Options kubeletDefaults() {
      return new Options(Duration.ofSeconds(10), Duration.ofMinutes(1), true);
    }

    public static Options withoutHeartbeats() {
      return new Options(Duration.ofSeconds(10), Duration.ofMinutes(1), false);
    }
  }

  private final KubernetesClient client;
  private final Options options;
  private final ScheduledExecutorService timers;
  private final Map<String, SimulatedKubelet> kubelets = new ConcurrentHashMap<>();
  private volatile boolean leaseNamespaceReady;
  private volatile String kubeletVersion;

  public KubeletFleet(KubernetesClient client, Options options) {
    this.client = client;
    this.options = options;
    this.timers =
        Executors.newScheduledThreadPool(
            2, runnable -> Thread.ofPlatform().daemon().name("kubelet-fleet").unstarted(runnable));
  }

  /** Registers one node and starts its heartbeats. */
  public SimulatedKubelet register(NodeSpec spec) {
    ensureLeaseNamespace();
    Node node =
        client.nodes().resource(KubeletObjects.registration(spec, kubeletVersion())).create();
    SimulatedKubelet kubelet = new SimulatedKubelet(client, spec, options.heartbeats());
    if (options.heartbeats()) {
      client
          .leases()
          .inNamespace(WellKnownNamespaces.KUBE_NODE_LEASE)
          .resource(KubeletObjects.lease(node))
          .create();
      // Spread the kubelets over the interval, as real ones start at different times.
      long leaseMs = options.leaseRenewInterval().toMillis();
      long statusMs = options.statusUpdateInterval().toMillis();
      kubelet.leaseRenewal =
          timers.scheduleAtFixedRate(
              kubelet::renewLease,
              ThreadLocalRandom.current().nextLong(leaseMs),
              leaseMs,
              TimeUnit.MILLISECONDS);
      kubelet.statusUpdate =
          timers.scheduleAtFixedRate(
              kubelet::postStatus,
              ThreadLocalRandom.current().nextLong(statusMs),
              statusMs,
              TimeUnit.MILLISECONDS);
    }
    kubelets.put(spec.name(), kubelet);
    return kubelet;
  }

  /** Registers all nodes, {@code parallelism} at a time; returns once every one is registered. */
  public List<SimulatedKubelet> registerAll(List<NodeSpec> specs, int parallelism) {
    ensureLeaseNamespace();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            parallelism,
            runnable -> Thread.ofPlatform().daemon().name("kubelet-register").unstarted(runnable));
    try {
      List<Future<SimulatedKubelet>> futures = new ArrayList<>();
      for (NodeSpec spec : specs) {
        futures.add(pool.submit(() -> register(spec)));
      }
      List<SimulatedKubelet> result = new ArrayList<>();
      for (Future<SimulatedKubelet> future : futures) {
        result.add(future.get());
      }
      return result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while registering nodes", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "registering a node failed: " + e.getCause().getMessage(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  public SimulatedKubelet kubelet(String nodeName) {
    return kubelets.get(nodeName);
  }

  public List<SimulatedKubelet> kubelets() {
    return List.copyOf(kubelets.values());
  }

  /** A kubelet of the control plane's own release, as a cluster without version skew has. */
  private String kubeletVersion() {
    String version = kubeletVersion;
    if (version == null) {
      version = client.getKubernetesVersion().getGitVersion();
      kubeletVersion = version;
    }
    return version;
  }

  private void ensureLeaseNamespace() {
    if (leaseNamespaceReady || !options.heartbeats()) {
      return;
    }
    synchronized (this) {
      if (leaseNamespaceReady) {
        return;
      }
      try {
        client
            .namespaces()
            .resource(
                new NamespaceBuilder()
                    .withNewMetadata()
                    .withName(WellKnownNamespaces.KUBE_NODE_LEASE)
                    .endMetadata()
                    .build())
            .create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
      leaseNamespaceReady = true;
    }
  }

  /** Stops every heartbeat; the Nodes stay (as when kubelets die). */
  @Override
  public void close() {
    kubelets.values().forEach(SimulatedKubelet::cancel);
    timers.shutdownNow();
  }
}
