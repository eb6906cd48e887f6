package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            "flag --cloud-config, flag --controllers=cloud-node,cloud-node-lifecycle,service,"
                + " flag --leader-elect-resource-name=cloud-controller-manager");
    assertThat(workloads.get(2).recognisedBy())
        .isEqualTo(
            "flag --cloud-config, ClusterRole system:vendor-controller, bound to its"
                + " ServiceAccount vendor-controller, patches nodes and updates services/status");
  }

  /** A controller switched off is shown so, not as one the CCM runs (Azure's --controllers). */
  @Test
  void aControllerSwitchedOffIsShownAsWritten(@TempDir Path dir) throws Exception {
    Path manifest = dir.resolve("ccm.yaml");
    Files.writeString(
        manifest,
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: manager, namespace: kube-system}
        spec:
          selector: {matchLabels: {app: manager}}
          template:
            metadata: {labels: {app: manager}}
            spec:
              containers:
                - name: manager
                  image: example.com/manager:1
                  args:
                    - --cloud-config=/etc/cloud/config
                    - --controllers=*,-cloud-node
                    - --leader-elect-resource-name=cloud-controller-manager
        """);

    assertThat(Doctor.workloads(Manifests.read(List.of(manifest))))
        .singleElement()
        .extracting(CcmWorkload::recognisedBy)
        .isEqualTo(
            "flag --cloud-config, flag --controllers=*,-cloud-node,"
                + " flag --leader-elect-resource-name=cloud-controller-manager");
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

  /**
   * An image that holds several programs is no CCM's name when the command runs another of them
   * (Oracle's cloud-provider-oci image runs its volume provisioner too); a launcher such as a shell
   * says nothing. A CCM vendor's admission server or operator is no CCM, its name says so.
   */
  @Test
  void anImageNameIsNotEnoughWhenTheCommandRunsAnotherProgram(@TempDir Path temp) throws Exception {
    Path file = temp.resolve("shared-image.yaml");
    Files.writeString(
        file,
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: oci-block-volume-provisioner, namespace: kube-system}
        spec: {selector: {matchLabels: {app: p}}, template: {metadata: {labels: {app: p}}, spec: {containers: [
          {name: oci-volume-provisioner, image: ghcr.io/oracle/cloud-provider-oci:v1.35.0,
           command: [/usr/local/bin/oci-volume-provisioner]}]}}}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: digitalocean-cloud-controller-manager-admission-server, namespace: kube-system}
        spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {containers: [
          {name: admission-server, image: digitalocean/digitalocean-cloud-controller-manager-admission-server:v0.1.68,
           command: [/bin/digitalocean-cloud-controller-manager-admission-server]}]}}}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: oci-cloud-controller-manager, namespace: kube-system}
        spec: {selector: {matchLabels: {app: c}}, template: {metadata: {labels: {app: c}}, spec: {containers: [
          {name: oci-cloud-controller-manager, image: ghcr.io/oracle/cloud-provider-oci:v1.35.0,
           command: [/usr/local/bin/oci-cloud-controller-manager], args: [--leader-elect-resource-lock=leases]}]}}}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: shell-ccm, namespace: kube-system}
        spec: {selector: {matchLabels: {app: s}}, template: {metadata: {labels: {app: s}}, spec: {containers: [
          {name: manager, image: ghcr.io/oracle/cloud-provider-oci:v1.35.0,
           command: [/bin/sh, -c, exec /usr/local/bin/oci-cloud-controller-manager]}]}}}
        """);
    List<ManifestDocument> documents = Manifests.read(List.of(file));

    assertThat(Doctor.workloads(documents))
        .extracting(CcmWorkload::name)
        .containsExactly("oci-cloud-controller-manager", "shell-ccm");
    assertThat(Doctor.notTakenForCcms(documents))
        .hasSize(2)
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("Deployment/oci-block-volume-provisioner (")
                    .contains(
                        "(image name cloud-provider-oci (running oci-volume-provisioner)) but is not"
                            + " taken for one: too few signs"))
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith(
                        "Deployment/digitalocean-cloud-controller-manager-admission-server (")
                    .contains("its name says admission"));
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
