package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Scenarios;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ccm4j's image on the real nodes: which tag and digest, and the lab's copy of a manifest. */
class RealCcmImageTest {

  private static final RealCcmImage IMAGE =
      new RealCcmImage(Path.of("ccm4j-image.tar"), "ccm4j:lab", "sha256:0");

  @SuppressWarnings("deprecation")
  private static List<HasMetadata> load(String yaml) {
    Object loaded =
        Serialization.unmarshal(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    return switch (loaded) {
      case KubernetesList list -> list.getItems();
      case List<?> list -> list.stream().map(HasMetadata.class::cast).toList();
      default -> List.of((HasMetadata) loaded);
    };
  }

  @Test
  void theRecommendedCcmRunsTheImageOnTheLabsCloudAndTheNodesApiServerRelay() {
    List<HasMetadata> rewritten =
        IMAGE.rewrite(
            load(Scenarios.manifest(Scenarios.RECOMMENDED)),
            "instances: []\n",
            Path.of("/tmp/lab/cloud"));

    assertThat(rewritten.getFirst())
        .isInstanceOfSatisfying(
            ConfigMap.class,
            map -> {
              assertThat(map.getMetadata().getName()).isEqualTo("ccm4j-lab-cloud");
              assertThat(map.getMetadata().getNamespace()).isEqualTo("kube-system");
              assertThat(map.getData()).containsEntry("cloud.yaml", "instances: []\n");
            });
    Deployment deployment =
        rewritten.stream()
            .filter(Deployment.class::isInstance)
            .map(Deployment.class::cast)
            .findFirst()
            .orElseThrow();
    Container ccm =
        CcmWorkload.ccmContainer(deployment.getSpec().getTemplate().getSpec()).orElseThrow();
    assertThat(ccm.getImage()).isEqualTo("ccm4j:lab");
    assertThat(ccm.getImagePullPolicy()).isEqualTo("Never");
    // its own arguments kept (leader election decides a verdict), the local cloud added (real
    // load balancers)
    assertThat(ccm.getArgs())
        .containsSubsequence("run", "--leader-elect=true")
        .endsWith("--cloud-provider=local", "--cloud-config=/etc/ccm4j-lab/cloud.yaml");
    // no kube-proxy on the real nodes: the API server on the node's loopback, not the ClusterIP
    assertThat(ccm.getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(
            org.assertj.core.groups.Tuple.tuple("KUBERNETES_SERVICE_HOST", "127.0.0.1"),
            org.assertj.core.groups.Tuple.tuple("KUBERNETES_SERVICE_PORT", "6443"));
    // the liveness probe waits for a slow JVM's first answer
    assertThat(ccm.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(ccm.getStartupProbe().getFailureThreshold()).isEqualTo(60);
    assertThat(ccm.getLivenessProbe().getInitialDelaySeconds()).isEqualTo(20);
    assertThat(ccm.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/ccm4j-lab"))
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/var/lib/ccm4j-lab-cloud"));
    // the cloud's route table in the lab's directory, shared by the replicas on both nodes
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo("ccm4j-lab-cloud-state");
              assertThat(v.getHostPath().getPath()).isEqualTo("/tmp/lab/cloud");
            });
    assertThat(RealCcmImage.CLOUD_CONFIG)
        .contains("routeTable: /var/lib/ccm4j-lab-cloud/routes.json");
    // where it is scheduled is the manifest's
    assertThat(deployment.getSpec().getTemplate().getSpec().getHostNetwork()).isTrue();
    assertThat(deployment.getSpec().getTemplate().getSpec().getTolerations()).hasSize(4);
  }

  @Test
  void anotherProjectsCcmIsLeftAsItIs() {
    String yaml = Scenarios.manifest("list-daemonset");

    List<HasMetadata> rewritten =
        IMAGE.rewrite(load(yaml), "instances: []\n", Path.of("/tmp/lab/cloud"));

    assertThat(rewritten).noneMatch(ConfigMap.class::isInstance);
    assertThat(RealCcmPods.standInImages(rewritten, java.util.Optional.of(IMAGE)))
        .containsExactly("example/cloud-controller-manager:v1");
  }

  @Test
  void theTagAndTheDigestAKubeletReportsComeFromTheTarball(@TempDir Path dir) throws Exception {
    byte[] config = "{\"architecture\":\"amd64\"}".getBytes(StandardCharsets.UTF_8);
    Files.write(dir.resolve("cfg.json"), config);
    Files.writeString(
        dir.resolve("manifest.json"),
        "[{\"Config\":\"cfg.json\",\"RepoTags\":[\"ccm4j:9.9\"],\"Layers\":[]}]");
    Process tar =
        new ProcessBuilder("tar", "-C", dir.toString(), "-cf", "image.tar", "manifest.json")
            .directory(dir.toFile())
            .start();
    assertThat(tar.waitFor()).isZero();
    new ProcessBuilder("tar", "-C", dir.toString(), "-rf", "image.tar", "cfg.json")
        .directory(dir.toFile())
        .start()
        .waitFor();

    RealCcmImage image = RealCcmImage.read(dir.resolve("image.tar"));

    assertThat(image.tag()).isEqualTo("ccm4j:9.9");
    assertThat(image.configDigest())
        .isEqualTo(
            "sha256:"
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(config)));
  }
}
