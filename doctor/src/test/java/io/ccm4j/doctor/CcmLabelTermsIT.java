package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * What the {@code topology-key-set-by-ccm} finding claims, checked against a real kube-scheduler:
 * on nodes as the kubelet registers them (hostname label, the uninitialized taint, no zone or
 * region), IONOS Cloud's CCM pod with its required anti-affinity on the region schedules, and two
 * of them share a node; the same pod spread on the region with {@code DoNotSchedule}, or with a
 * required pod affinity on it, stays Pending until a node has the label; so does the pod with a
 * nodeSelector or a required node affinity on the zone or instance type; as {@code --fix} writes
 * them they schedule.
 */
@WithControlPlane(scheduler = true, shared = false)
class CcmLabelTermsIT {

  private static final Path IONOS =
      Path.of("src", "test", "resources", "vendor", "ionos-cloud-deployment.yaml");
  private static final Duration SCHEDULED = Duration.ofSeconds(30);
  private static final String REGION = WellKnownLabels.REGION;

  @Test
  void aRealSchedulerPlacesTheRegionAntiAffinityButNotASpreadOrAffinityOnTheRegion(
      KubernetesClient client) throws Exception {
    CcmWorkload ionos = Doctor.workloads(Manifests.read(List.of(IONOS))).getFirst();
    for (String node : List.of("lab-node-1", "lab-node-2")) {
      registerAsTheKubeletDoes(client, node);
    }

    // The chart's own pod: the anti-affinity term counts no pod on nodes without the region.
    String antiAffinity = namespace(client, "anti-affinity");
    create(client, antiAffinity, "ccm-1", ionos, spec -> {});
    create(client, antiAffinity, "ccm-2", ionos, spec -> {});
    assertThat(nodeOf(client, antiAffinity, "ccm-1")).isPresent();
    assertThat(nodeOf(client, antiAffinity, "ccm-2")).isPresent();
    assertThat(severity(ionos)).isEqualTo(Rule.Severity.WARNING);

    // The same pod, spread on the region with DoNotSchedule: every node is filtered out.
    Consumer<PodSpec> spread =
        spec -> {
          spec.getAffinity().setPodAntiAffinity(null);
          spec.setTopologySpreadConstraints(
              List.of(
                  new TopologySpreadConstraintBuilder()
                      .withMaxSkew(1)
                      .withTopologyKey(REGION)
                      .withWhenUnsatisfiable(CcmLabelTerms.DO_NOT_SCHEDULE)
                      .withNewLabelSelector()
                      .withMatchLabels(ionos.podLabels())
                      .endLabelSelector()
                      .build()));
        };
    // ... or with a required pod affinity on it (to its own pods: the first of a series).
    Consumer<PodSpec> affinity =
        spec ->
            spec.getAffinity()
                .setPodAffinity(
                    new PodAffinityBuilder()
                        .addToRequiredDuringSchedulingIgnoredDuringExecution(
                            spec.getAffinity()
                                .getPodAntiAffinity()
                                .getRequiredDuringSchedulingIgnoredDuringExecution()
                                .getFirst())
                        .build());
    String spreadNamespace = namespace(client, "spread");
    create(client, spreadNamespace, "ccm", ionos, spread);
    assertThat(unschedulable(client, spreadNamespace, "ccm")).contains("missing required label");
    assertThat(severity(changed(ionos, spread))).isEqualTo(Rule.Severity.ERROR);

    String podAffinityOnly = namespace(client, "pod-affinity");
    create(client, podAffinityOnly, "ccm", ionos, affinity);
    assertThat(unschedulable(client, podAffinityOnly, "ccm"))
        .contains("didn't match pod affinity rules");
    assertThat(severity(changed(ionos, affinity))).isEqualTo(Rule.Severity.ERROR);

    // As --fix writes them, both schedule on the same unlabelled nodes.
    String fixedNamespace = namespace(client, "fixed");
    for (Consumer<PodSpec> change : List.of(spread, affinity)) {
      CcmWorkload fixed = changed(ionos, change);
      Doctor.fix(fixed);
      assertThat(Doctor.check(fixed)).doesNotContain(Rule.TOPOLOGY_KEY_SET_BY_CCM);
      String name = change == spread ? "spread" : "affinity";
      create(client, fixedNamespace, name, fixed, spec -> {});
      assertThat(nodeOf(client, fixedNamespace, name)).isPresent();
    }

    // It is the label they wait for: once the CCM has set it on a node, the spread pod binds there.
    client.nodes().withName("lab-node-2").edit(n -> labelled(n, REGION, "de-fra"));
    assertThat(nodeOf(client, spreadNamespace, "ccm")).contains("lab-node-2");
  }

  /**
   * A nodeSelector entry or a required node affinity on a label only the CCM sets keeps IONOS
   * Cloud's pod off every node as the kubelet registers it (NodeAffinity: "didn't match Pod's node
   * affinity/selector"); NotIn on such a label holds there; as --fix writes them they schedule, and
   * the nodeSelector pod binds once a node has the label.
   */
  @Test
  void aRealSchedulerKeepsANodeSelectionOnTheZoneOffUnlabelledNodes(KubernetesClient client)
      throws Exception {
    CcmWorkload ionos = Doctor.workloads(Manifests.read(List.of(IONOS))).getFirst();
    for (String node : List.of("selection-node-1", "selection-node-2")) {
      registerAsTheKubeletDoes(client, node);
    }
    Consumer<PodSpec> selector =
        spec -> spec.setNodeSelector(Map.of(WellKnownLabels.ZONE, "eu-1a"));
    Consumer<PodSpec> exists =
        spec -> spec.setAffinity(requiredNodeAffinity(WellKnownLabels.INSTANCE_TYPE, "Exists"));
    Consumer<PodSpec> notIn =
        spec -> spec.setAffinity(requiredNodeAffinity(WellKnownLabels.ZONE, "NotIn", "eu-1c"));

    String namespace = namespace(client, "node-selection");
    create(client, namespace, "selector", ionos, selector);
    create(client, namespace, "exists", ionos, exists);
    create(client, namespace, "not-in", ionos, notIn);
    assertThat(unschedulable(client, namespace, "selector"))
        .contains("didn't match Pod's node affinity/selector");
    assertThat(unschedulable(client, namespace, "exists"))
        .contains("didn't match Pod's node affinity/selector");
    assertThat(nodeOf(client, namespace, "not-in")).isPresent();
    assertThat(severity(changed(ionos, selector))).isEqualTo(Rule.Severity.ERROR);
    assertThat(severity(changed(ionos, exists))).isEqualTo(Rule.Severity.ERROR);
    assertThat(Checks.ccmLabelTerms(changed(ionos, notIn)))
        .extracting(CcmLabelTerms.Term::kind)
        .doesNotContain(CcmLabelTerms.Kind.REQUIRED_NODE_AFFINITY);

    String fixedNamespace = namespace(client, "node-selection-fixed");
    for (Consumer<PodSpec> change : List.of(selector, exists)) {
      CcmWorkload fixed = changed(ionos, change);
      Doctor.fix(fixed);
      assertThat(Doctor.check(fixed)).doesNotContain(Rule.TOPOLOGY_KEY_SET_BY_CCM);
      String name = change == selector ? "selector" : "exists";
      create(client, fixedNamespace, name, fixed, spec -> {});
      assertThat(nodeOf(client, fixedNamespace, name)).isPresent();
    }

    client
        .nodes()
        .withName("selection-node-2")
        .edit(n -> labelled(n, WellKnownLabels.ZONE, "eu-1a"));
    assertThat(nodeOf(client, namespace, "selector")).contains("selection-node-2");
  }

  /** A required node affinity of one term with one requirement. */
  private static Affinity requiredNodeAffinity(String key, String operator, String... values) {
    return new AffinityBuilder()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm()
        .addNewMatchExpression()
        .withKey(key)
        .withOperator(operator)
        .withValues(values)
        .endMatchExpression()
        .endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .build();
  }

  private static Node labelled(Node node, String key, String value) {
    node.getMetadata().getLabels().put(key, value);
    return node;
  }

  /**
   * A control-plane node as kubelet --cloud-provider=external registers it (hostname, OS, arch; the
   * uninitialized taint) and kubeadm marks it (the control-plane label and taint).
   */
  private static void registerAsTheKubeletDoes(KubernetesClient client, String name) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(
                    Map.of(
                        WellKnownLabels.HOSTNAME,
                        name,
                        "kubernetes.io/os",
                        "linux",
                        "kubernetes.io/arch",
                        "amd64",
                        WellKnownLabels.ROLE_CONTROL_PLANE,
                        ""))
                .endMetadata()
                .withNewSpec()
                .addNewTaint()
                .withKey(WellKnownTaints.UNINITIALIZED)
                .withValue("true")
                .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
                .endTaint()
                .addNewTaint()
                .withKey(WellKnownTaints.CONTROL_PLANE)
                .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
                .endTaint()
                .endSpec()
                .build())
        .create();
    client
        .nodes()
        .withName(name)
        .editStatus(
            n -> {
              n.getStatus()
                  .setAllocatable(
                      Map.of(
                          "cpu", new Quantity("4"),
                          "memory", new Quantity("8Gi"),
                          "pods", new Quantity("110")));
              n.getStatus().setCapacity(n.getStatus().getAllocatable());
              return n;
            });
  }

  private static String namespace(KubernetesClient client, String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }

  /** The workload's pod, changed, in a namespace with its ServiceAccount. */
  private static void create(
      KubernetesClient client,
      String namespace,
      String name,
      CcmWorkload workload,
      Consumer<PodSpec> change) {
    PodSpec spec = changed(workload, change).pod();
    spec.setAutomountServiceAccountToken(false);
    if (client.serviceAccounts().inNamespace(namespace).withName(spec.getServiceAccountName()).get()
        == null) {
      client
          .serviceAccounts()
          .inNamespace(namespace)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName(spec.getServiceAccountName())
                  .endMetadata()
                  .build())
          .create();
    }
    client
        .pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(workload.podLabels())
                .endMetadata()
                .withSpec(spec)
                .build())
        .create();
  }

  /** A copy of the workload (read again from its YAML) with its pod spec changed. */
  private static CcmWorkload changed(CcmWorkload workload, Consumer<PodSpec> change) {
    try {
      Path file = Files.createTempFile("ccm-label-terms", ".yaml");
      Files.writeString(file, workload.toYaml());
      CcmWorkload copy = Doctor.workloads(Manifests.read(List.of(file))).getFirst();
      Files.delete(file);
      change.accept(copy.pod());
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ManifestException e) {
      throw new IllegalStateException("the workload's own YAML reads back", e);
    }
  }

  private static Rule.Severity severity(CcmWorkload workload) {
    return Checks.finding(workload, Rule.TOPOLOGY_KEY_SET_BY_CCM).severity();
  }

  private static Optional<String> nodeOf(KubernetesClient client, String namespace, String name) {
    return Awaitility.await()
        .atMost(SCHEDULED)
        .until(
            () ->
                Optional.ofNullable(
                    client
                        .pods()
                        .inNamespace(namespace)
                        .withName(name)
                        .get()
                        .getSpec()
                        .getNodeName()),
            Optional::isPresent);
  }

  /** The scheduler's message once it has found no node for the pod. */
  private static String unschedulable(KubernetesClient client, String namespace, String name) {
    return Awaitility.await()
        .atMost(SCHEDULED)
        .until(
            () -> {
              Pod pod = client.pods().inNamespace(namespace).withName(name).get();
              assertThat(pod.getSpec().getNodeName()).isNull();
              List<PodCondition> conditions =
                  pod.getStatus() == null ? List.of() : pod.getStatus().getConditions();
              return conditions.stream()
                  .filter(
                      c ->
                          "PodScheduled".equals(c.getType())
                              && "Unschedulable".equals(c.getReason()))
                  .map(PodCondition::getMessage)
                  .findFirst()
                  .orElse("");
            },
            message -> !message.isEmpty());
  }
}
