package io.ccm4j.simulator.proxy;

import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Simulated kube-proxies for simulated nodes, fed by one Service informer and one Node informer
 * shared by all of them (as each real kube-proxy watches Services and its own Node). Attach one to
 * a {@link SimulatedKubelet} registered with a node IP, or start one for any node name and loopback
 * address.
 */
public final class KubeProxyFleet implements AutoCloseable {

  private final KubernetesClient client;
  private final Map<String, SimulatedKubeProxy> proxies = new ConcurrentHashMap<>();
  private SharedIndexInformer<Service> services;
  private SharedIndexInformer<Node> nodes;

  public KubeProxyFleet(KubernetesClient client) {
    this.client = client;
  }

  /** A kube-proxy on the kubelet's node IP (its first one, for a dual-stack pair). */
  public SimulatedKubeProxy attach(SimulatedKubelet kubelet) {
    if (kubelet.nodeIp() == null) {
      throw new IllegalArgumentException(
          "kubelet "
              + kubelet.nodeName()
              + " was registered without a node IP (NodeSpec.withNodeIp)");
    }
    return start(kubelet.nodeName(), kubelet.nodeIp().split(",")[0].trim());
  }

  /** A kube-proxy for {@code nodeName} serving on {@code nodeIp} (a loopback address). */
  public synchronized SimulatedKubeProxy start(String nodeName, String nodeIp) {
    if (proxies.containsKey(nodeName)) {
      throw new IllegalStateException("node " + nodeName + " already has a kube-proxy");
    }
    SimulatedKubeProxy proxy;
    try {
      proxy = new SimulatedKubeProxy(nodeName, nodeIp);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "kube-proxy for "
              + nodeName
              + ": cannot listen on "
              + nodeIp
              + ":"
              + SimulatedKubeProxy.HEALTHZ_PORT,
          e);
    }
    proxies.put(nodeName, proxy);
    startInformers();
    for (Service service : services.getStore().list()) {
      proxy.apply(service);
    }
    Node node = nodes.getStore().getByKey(nodeName);
    if (node != null) {
      proxy.nodeUpdated(node);
    }
    return proxy;
  }

  public SimulatedKubeProxy proxy(String nodeName) {
    return proxies.get(nodeName);
  }

  public List<SimulatedKubeProxy> proxies() {
    return List.copyOf(proxies.values());
  }

  /** Stops one node's kube-proxy. */
  public void stop(String nodeName) {
    SimulatedKubeProxy proxy = proxies.remove(nodeName);
    if (proxy != null) {
      proxy.close();
    }
  }

  private void startInformers() {
    if (services != null) {
      return;
    }
    services =
        client
            .services()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Service service) {
                    proxies.values().forEach(p -> p.apply(service));
                  }

                  @Override
                  public void onUpdate(Service oldService, Service service) {
                    proxies.values().forEach(p -> p.apply(service));
                  }

                  @Override
                  public void onDelete(Service service, boolean unknownFinalState) {
                    proxies
                        .values()
                        .forEach(
                            p ->
                                p.remove(
                                    service.getMetadata().getNamespace(),
                                    service.getMetadata().getName()));
                  }
                },
                0);
    nodes =
        client
            .nodes()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Node node) {
                    update(node);
                  }

                  @Override
                  public void onUpdate(Node oldNode, Node node) {
                    update(node);
                  }

                  @Override
                  public void onDelete(Node node, boolean unknownFinalState) {}
                },
                0);
  }

  private void update(Node node) {
    SimulatedKubeProxy proxy = proxies.get(node.getMetadata().getName());
    if (proxy != null) {
      proxy.nodeUpdated(node);
    }
  }

  /** Stops the informers and every kube-proxy. */
  @Override
  public synchronized void close() {
    if (services != null) {
      services.close();
      nodes.close();
    }
    proxies.values().forEach(SimulatedKubeProxy::close);
    proxies.clear();
  }
}
