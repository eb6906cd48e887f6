package io.ccm4j.lab;

import io.ccm4j.app.options.GoDurationConverter;
import io.ccm4j.app.options.KubeClientOptions;
import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.ccm4j.simulator.proxy.KubeProxyFleet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j nodes}: simulated kubelets that register nodes and heartbeat until Ctrl-C. */
@Command(
    name = "nodes",
    description = {
      "Run simulated kubelets that register nodes and heartbeat until Ctrl-C.",
      "",
      "Register simulated kubelets' nodes as kubelets with --cloud-provider=external do (the "
          + "uninitialized taint, the provided-node-ip annotation, no provider ID), renew their "
          + "Leases and post their status until Ctrl-C. With --cloud-config of the sim provider, one "
          + "node per instance, with the instance's first address as --node-ip."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class NodesCommand implements Callable<Integer> {

  /** The node IPs of {@code --kube-proxies}: loopback, so nothing leaves the machine. */
  private static final String KUBE_PROXY_SUBNET = "127.0.60.";

  private static final int KUBE_PROXY_SUBNET_SIZE = 250;

  @Spec CommandSpec spec;

  @Option(
      names = "--kubeconfig",
      paramLabel = "<file>",
      required = true,
      description = "The cluster to register in.")
  Path kubeconfig;

  @Option(
      names = "--cloud-config",
      paramLabel = "<file>",
      description = "A sim cloud config: register one node per instance, with matching node IPs.")
  Path cloudConfig;

  @Option(
      names = "--count",
      paramLabel = "<n>",
      defaultValue = "3",
      description = "Without --cloud-config: how many nodes. Default: ${DEFAULT-VALUE}.")
  int count;

  @Option(
      names = "--prefix",
      paramLabel = "<name>",
      defaultValue = "node-",
      description = "Without --cloud-config: node name prefix. Default: ${DEFAULT-VALUE}.")
  String prefix;

  @Option(
      names = "--kube-proxies",
      description = {
        "Without --cloud-config: give node i the node IP 127.0.60.<i+1> and run a simulated "
            + "kube-proxy there that serves the Services' node ports (HTTP answering with the node and "
            + "Service names, UDP echo) and kube-proxy's health checks; what --cloud-provider=local "
            + "load balancers forward to. At most 250 nodes."
      })
  boolean kubeProxies;

  @Option(
      names = "--lease-renew-interval",
      paramLabel = "<duration>",
      defaultValue = "10s",
      converter = GoDurationConverter.class,
      description = "How often each kubelet renews its Lease. Default: ${DEFAULT-VALUE}.")
  Duration leaseRenewInterval;

  @Option(
      names = "--status-update-interval",
      paramLabel = "<duration>",
      defaultValue = "1m",
      converter = GoDurationConverter.class,
      description = "How often each kubelet posts its status. Default: ${DEFAULT-VALUE}.")
  Duration statusUpdateInterval;

  @Override
  public Integer call() throws Exception {
    if (count < 0) {
      throw new ParameterException(
          spec.commandLine(), "--count must not be negative, got " + count);
    }
    if (kubeProxies && (cloudConfig != null || count > KUBE_PROXY_SUBNET_SIZE)) {
      throw new ParameterException(
          spec.commandLine(),
          "--kube-proxies: needs node IPs of its own: not with --cloud-config, and --count at most "
              + KUBE_PROXY_SUBNET_SIZE);
    }
    if (!Files.isReadable(kubeconfig)) {
      throw new ParameterException(spec.commandLine(), "--kubeconfig: cannot read " + kubeconfig);
    }
    List<NodeSpec> nodes = new ArrayList<>();
    if (cloudConfig != null) {
      SimCloud cloud;
      try {
        cloud = SimCloudProviderFactory.fromYaml(Files.readString(cloudConfig));
      } catch (CloudConfigException e) {
        throw new ParameterException(spec.commandLine(), "--cloud-config: " + e.getMessage());
      }
      cloud.instances().stream()
          .sorted(Comparator.comparing(i -> i.name()))
          .forEach(
              i ->
                  nodes.add(
                      NodeSpec.named(i.name())
                          .withNodeIp(i.firstAddress(NodeAddress.Type.InternalIP))));
    } else {
      for (int i = 0; i < count; i++) {
        NodeSpec node = NodeSpec.named(prefix + i);
        nodes.add(kubeProxies ? node.withNodeIp(KUBE_PROXY_SUBNET + (i + 1)) : node);
      }
    }
    Config config = KubeClientOptions.fromKubeconfig("--kubeconfig", kubeconfig);
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        KubeletFleet fleet =
            new KubeletFleet(
                client, new KubeletFleet.Options(leaseRenewInterval, statusUpdateInterval, true));
        KubeProxyFleet proxies = new KubeProxyFleet(client)) {
      List<SimulatedKubelet> kubelets = fleet.registerAll(nodes, 16);
      if (kubeProxies) {
        kubelets.forEach(proxies::attach);
      }
      System.out.printf(
          "Registered %d nodes%s; heartbeating until Ctrl-C.%n",
          nodes.size(),
          kubeProxies ? " with kube-proxies on " + KUBE_PROXY_SUBNET + "1.." + nodes.size() : "");
      System.out.flush();
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "nodes-stop"));
      stopped.await();
    }
    return 0;
  }
}
