package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ccm4j run --cloud-provider=local} initialises nodes from their own Node objects. */
@WithControlPlane
class LocalCloudProviderIT {

  @Test
  void nodesAreInitialisedWithTheLocalCloud(LocalControlPlane controlPlane, KubernetesClient client)
      throws Exception {
    CommandLine command = new CommandLine(new Ccm4j());
    CommandLine.ParseResult parsed =
        command.parseArgs(
            "run",
            "--cloud-provider=local",
            "--kubeconfig=" + controlPlane.kubeconfigPath(),
            "--controllers=cloud-node",
            "--leader-elect=false");
    RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
    CloudControllerManager.Settings flags = run.settings();
    assertThat(flags.cloud()).isInstanceOf(LocalCloud.class);
    CloudControllerManager.Settings settings =
        CloudControllerManager.settings()
            .cloud(flags.cloud())
            .clusterName(flags.clusterName())
            .selection(flags.selection())
            .controllers(flags.controllers())
            .buildSettings();
    String name = "local-" + UUID.randomUUID().toString().substring(0, 6);
    String ip = "127.55." + ThreadLocalRandom.current().nextInt(1, 250) + ".1";
    try (CloudControllerManager manager =
            CloudControllerManager.builder(client).settings(settings).exit(code -> {}).build();
        KubeletFleet kubelets =
            new KubeletFleet(client, KubeletFleet.Options.withoutHeartbeats())) {
      manager.start();
      kubelets.register(NodeSpec.named(name).withNodeIp(ip));

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                Node node = client.nodes().withName(name).get();
                assertThat(node.getSpec().getProviderID()).isEqualTo("local://" + name);
                assertThat(node.getSpec().getTaints())
                    .noneMatch(t -> t.getKey().equals(WellKnownTaints.UNINITIALIZED));
                assertThat(node.getStatus().getAddresses())
                    .extracting(NodeAddress::getType, NodeAddress::getAddress)
                    .contains(
                        org.assertj.core.groups.Tuple.tuple("InternalIP", ip),
                        org.assertj.core.groups.Tuple.tuple("Hostname", name));
              });
    } finally {
      client.nodes().withName(name).delete();
    }
  }
}
