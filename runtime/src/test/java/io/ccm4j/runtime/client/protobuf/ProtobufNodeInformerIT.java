package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Node informer on the protobuf wire against a real API server. */
@WithControlPlane
class ProtobufNodeInformerIT {

  @Test
  void listsAndWatchesNodesAsTheJsonPathReadsThemWithoutTheDroppedFields(KubernetesClient client)
      throws Exception {
    Node first = createKubeletShaped(client, "proto-informer-a");
    SharedInformerFactory factory = ProtobufInformerFactory.of(client, KubeApiContentType.PROTOBUF);
    SharedIndexInformer<Node> informer = factory.sharedIndexInformerFor(Node.class, 0);
    List<String> seen = new CopyOnWriteArrayList<>();
    informer.addEventHandler(recording(seen));
    try {
      factory.startAllRegisteredInformers().get(60, TimeUnit.SECONDS);
      assertThat(informer).isInstanceOf(DefaultSharedIndexInformer.class);
      assertThat(factory.getExistingSharedIndexInformer(Node.class)).isSameAs(informer);
      // Watching before any event arrives: a quiet API server sends nothing for a minute, and the
      // InformerWatchdog must not take that for a stall.
      await().atMost(5, TimeUnit.SECONDS).until(informer::isWatching);

      // Listed: exactly what JSON reads, less what the projection drops.
      Node listed = informer.getStore().getByKey("proto-informer-a");
      assertThat(listed).isEqualTo(projected(client.nodes().withName("proto-informer-a").get()));
      assertThat(listed.getStatus().getImages()).isEmpty();
      assertThat(listed.getMetadata().getManagedFields()).isEmpty();

      // Watched: an add, an update, a delete.
      createKubeletShaped(client, "proto-informer-b");
      client
          .nodes()
          .withName("proto-informer-a")
          .edit(
              node ->
                  new NodeBuilder(node).editMetadata().addToLabels("x", "y").endMetadata().build());
      delete(client, "proto-informer-b");
      await()
          .atMost(20, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertThat(seen)
                      .contains(
                          "add proto-informer-b",
                          "update proto-informer-a",
                          "delete proto-informer-b"));
      assertThat(informer.isWatching()).isTrue();
      Node updated = informer.getStore().getByKey("proto-informer-a");
      assertThat(updated.getMetadata().getLabels()).containsEntry("x", "y");
      assertThat(updated).isEqualTo(projected(client.nodes().withName("proto-informer-a").get()));
      assertThat(first.getMetadata().getUid()).isEqualTo(updated.getMetadata().getUid());
    } finally {
      factory.stopAllRegisteredInformers();
      delete(client, "proto-informer-a");
    }
  }

  @Test
  void pagesTheListWithLimitAndContinue(KubernetesClient client) throws Exception {
    for (int i = 0; i < 3; i++) {
      createKubeletShaped(client, "proto-page-" + i);
    }
    try {
      ProtobufNodeListerWatcher nodes = new ProtobufNodeListerWatcher(client);
      ListOptions first = new ListOptions();
      first.setLimit(2L);
      NodeList page = nodes.submitList(first).get(30, TimeUnit.SECONDS);
      assertThat(page.getItems()).hasSize(2);
      assertThat(page.getMetadata().getContinue()).isNotEmpty();
      ListOptions next = new ListOptions();
      next.setLimit(2L);
      next.setContinue(page.getMetadata().getContinue());
      NodeList rest = nodes.submitList(next).get(30, TimeUnit.SECONDS);
      assertThat(rest.getItems()).isNotEmpty();
    } finally {
      for (int i = 0; i < 3; i++) {
        delete(client, "proto-page-" + i);
      }
    }
  }

  /** A Node as a kubelet writes it: labels, taints, addresses, conditions, images, volumes. */
  static Node createKubeletShaped(KubernetesClient client, String name) {
    Node node =
        Serialization.unmarshal(
            ProtobufNodeInformerIT.class.getResourceAsStream("kubelet-node.json"), Node.class);
    node.getMetadata().setName(name);
    node.getMetadata().getLabels().put("kubernetes.io/hostname", name);
    Node created = client.nodes().resource(node).create();
    created.setStatus(node.getStatus());
    return client.nodes().resource(created).updateStatus();
  }

  /** Deletes a Node made by {@link #createKubeletShaped}, without its finalizer. */
  static void delete(KubernetesClient client, String name) {
    client
        .nodes()
        .withName(name)
        .edit(node -> new NodeBuilder(node).editMetadata().withFinalizers().endMetadata().build());
    client.nodes().withName(name).delete();
  }

  /** What the projection keeps of a Node read as JSON. */
  static Node projected(Node node) {
    Node copy = Serialization.clone(node);
    copy.getMetadata().setManagedFields(List.of());
    copy.getStatus().setImages(List.of());
    copy.getStatus().setVolumesInUse(List.of());
    copy.getStatus().setVolumesAttached(List.of());
    copy.getStatus().setConfig(null);
    copy.getStatus().setRuntimeHandlers(List.of());
    copy.getStatus().setFeatures(null);
    copy.getStatus().setDeclaredFeatures(List.of());
    copy.getStatus().getNodeInfo().setSwap(null);
    copy.getStatus().getNodeInfo().setAdditionalProperties(new java.util.HashMap<>());
    copy.getStatus().setAdditionalProperties(new java.util.HashMap<>());
    return copy;
  }

  private static ResourceEventHandler<Node> recording(List<String> seen) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node node) {
        seen.add("add " + node.getMetadata().getName());
      }

      @Override
      public void onUpdate(Node oldNode, Node newNode) {
        if (!oldNode
            .getMetadata()
            .getResourceVersion()
            .equals(newNode.getMetadata().getResourceVersion())) {
          seen.add("update " + newNode.getMetadata().getName());
        }
      }

      @Override
      public void onDelete(Node node, boolean deletedFinalStateUnknown) {
        seen.add("delete " + node.getMetadata().getName());
      }
    };
  }
}
