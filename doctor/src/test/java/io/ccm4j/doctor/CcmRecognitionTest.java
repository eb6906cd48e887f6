package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A CCM is recognised by what it is: names, the flags only a CCM takes, its RBAC; signs weighed.
 */
class CcmRecognitionTest {

  private static final Path RECOGNITION = Path.of("src", "test", "resources", "recognition");

  @Test
  void ccmsWithoutACloudProviderFlagAreRecognisedSayingWhy() throws Exception {
    List<CcmWorkload> workloads =
        Doctor.workloads(Manifests.read(List.of(RECOGNITION.resolve("ccms.yaml"))));

    assertThat(workloads)
        .extracting(CcmWorkload::name)
        .containsExactly("acme-cloud-provider", "cloud-manager", "vendor-controller");
    assertThat(workloads.get(0).recognisedBy()).isEqualTo("image name acme-cloud-provider");
    assertThat(workloads.get(1).recognisedBy())
        .isEqualTo(
            "flag --cloud-config, --controllers names cloud-node, cloud-node-lifecycle, service,"
                + " flag --leader-elect-resource-name=cloud-controller-manager");
    assertThat(workloads.get(2).recognisedBy())
        .isEqualTo(
            "flag --cloud-config, ClusterRole system:vendor-controller, bound to its"
                + " ServiceAccount vendor-controller, patches nodes and updates services/status");
  }

  /** Without the RBAC that binds it, one weak sign (--cloud-config) is not enough. */
  @Test
  void oneWeakSignIsNotEnough() throws Exception {
    List<ManifestDocument> documents =
        Manifests.read(List.of(RECOGNITION.resolve("ccms.yaml"))).stream()
            .filter(d -> !d.kind().startsWith("ClusterRole"))
            .toList();

    assertThat(Doctor.workloads(documents))
        .extracting(CcmWorkload::name)
        .containsExactly("acme-cloud-provider", "cloud-manager");
    assertThat(Doctor.notTakenForCcms(documents))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("Deployment/vendor-controller (")
                    .contains("(flag --cloud-config) but is not taken for one: too few signs"));
  }

  @Test
  void nodeAgentsCsiDriversAndTheAutoscalerAreNoCcm() throws Exception {
    List<ManifestDocument> documents =
        Manifests.read(List.of(RECOGNITION.resolve("not-ccms.yaml")));

    assertThat(Doctor.workloads(documents)).isEmpty();
    assertThat(Doctor.notTakenForCcms(documents))
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("DaemonSet/vendor-vpc-cni (")
                    .contains("flag --cloud-provider=vendor")
                    .contains("it mounts the node's /opt/cni/bin, as a node agent"))
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("Deployment/vendor-csi-controller (")
                    .contains("it serves a CSI socket (--endpoint=unix:///csi/csi.sock)"))
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("Deployment/cluster-autoscaler (")
                    .contains("its name says autoscaler"))
        .anySatisfy(
            line -> assertThat(line).startsWith("Deployment/dns-controller (").contains("too few"))
        .noneSatisfy(line -> assertThat(line).contains("kube-proxy"))
        .noneSatisfy(line -> assertThat(line).contains("lb-agent"));
  }

  /** The same pods in a live cluster (no RBAC at hand) are judged alike. */
  @Test
  void livePodsAreJudgedByTheirContainers() throws Exception {
    for (ManifestDocument document :
        Manifests.read(List.of(RECOGNITION.resolve("not-ccms.yaml")))) {
      Object spec = document.object().get("spec");
      if (spec == null || !document.kind().matches("Deployment|DaemonSet")) {
        continue;
      }
      var template =
          new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
              .convertValue(
                  ((java.util.Map<?, ?>) spec).get("template"),
                  io.fabric8.kubernetes.api.model.PodTemplateSpec.class);
      assertThat(CcmWorkload.runsCcm(template.getSpec())).as(document.location()).isFalse();
    }
  }
}
