package io.ccm4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The range allocator's workers, without an API server: the informers are never started. */
class NodeIpamControllerTest {

  /**
   * Upstream's range allocator starts cidrUpdateWorkers (30) workers, so as many nodes get their
   * pod CIDRs written at once.
   */
  @Test
  void asManyNodesAreAllocatedAtOnceAsUpstreamsCidrUpdateWorkersAllow() throws Exception {
    String name = "node-ipam-workers-" + System.nanoTime();
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build()) {
      NodeIpamController controller =
          new NodeIpamController(
              new ControllerContext(
                  name,
                  client,
                  client.informers(),
                  null,
                  "kubernetes",
                  new SimpleMeterRegistry(),
                  new EventRecorder() {
                    @Override
                    public void normal(HasMetadata object, String reason, String message) {}

                    @Override
                    public void warning(HasMetadata object, String reason, String message) {}
                  },
                  KubeApiContentType.DEFAULT),
              NetworkSettings.defaults()
                  .withAllocateNodeCidrs(true)
                  .withClusterCidrs(List.of(Cidr.parse("10.244.0.0/16"))));
      try {
        controller.start();

        assertThat(
                Thread.getAllStackTraces().keySet().stream()
                    .filter(thread -> thread.getName().startsWith(name + "-worker-")))
            .hasSize(30);
      } finally {
        controller.close();
      }
    }
  }
}
