package io.ccm4j.lab.real;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.doctor.CcmWorkload;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * ccm4j's container image on the real nodes: the tarball Jib builds ({@code
 * app/target/ccm4j-image.tar}, imported into every node's containerd under the tag it carries), and
 * the lab's copy of the CCM manifest that runs it. A CCM container of ccm4j's own ({@code run ...})
 * gets the image's tag ({@code imagePullPolicy: Never}), the lab's cloud ({@code
 * --cloud-provider=local}: real load balancers; its configuration from a ConfigMap; its route table
 * in a directory of the lab's, mounted from the node) and the API server at {@code 127.0.0.1:6443}
 * of its node (a relay there; the {@code kubernetes} Service's ClusterIP would need kube-proxy), a
 * startup probe in front of its liveness probe (a JVM on the lab's few busy cores may start slower
 * than the manifest's initial delay), and keeps everything else: where it is scheduled, its
 * tolerations, host network, leader election and controllers, which decide the verdict.
 *
 * @param tarball the image's docker-archive tarball
 * @param tag the tag it carries ({@code ccm4j:0.1.0})
 * @param configDigest the digest of its configuration: the {@code imageID} a kubelet reports for it
 */
record RealCcmImage(Path tarball, String tag, String configDigest) {

  /** Where the lab finds the tarball: this property, else {@code app/target} here or above. */
  static final String PROPERTY = "ccm4j.lab.image";

  /**
   * The cloud the CCM in ccm4j's image runs: {@code local}, whose load balancers are real listeners
   * (on the loopback of the node the leader runs on) and whose instances are the Nodes themselves.
   */
  static final String CLOUD_PROVIDER = "local";

  /**
   * Where the CCM container finds the lab's cloud state: a directory of the lab's, from its node.
   */
  static final String CLOUD_STATE_DIRECTORY = "/var/lib/ccm4j-lab-cloud";

  /** The volume of that directory. */
  static final String CLOUD_STATE_VOLUME = "ccm4j-lab-cloud-state";

  /**
   * Its configuration: load balancer addresses on the node's loopback, the cluster network's
   * addresses as backends (the other nodes' network namespaces on this machine), health checks
   * quick enough for a lab run, and the route table in the lab's cloud state, which every replica
   * shares and the lab programs into the cluster network.
   */
  static final String CLOUD_CONFIG =
      "addressPool: 127.0.100.0/24\nbackendNetworks: [10.77.0.0/24]\n"
          + "healthCheck: {interval: 1s, timeout: 1s}\n"
          + "routeTable: "
          + CLOUD_STATE_DIRECTORY
          + "/"
          + RealCloudRouter.ROUTE_TABLE
          + "\n";

  /** The ConfigMap (in the CCM's namespace) with the lab's cloud configuration. */
  static final String CLOUD_CONFIG_MAP = "ccm4j-lab-cloud";

  /** Where the CCM container finds it. */
  static final String CLOUD_CONFIG_DIRECTORY = "/etc/ccm4j-lab";

  /** The relay to the API server on each node's loopback (the serving certificate names it). */
  static final String API_SERVER_HOST = "127.0.0.1";

  static final String API_SERVER_PORT = "6443";

  /** The startup probe the lab adds to a liveness probe: 5 minutes to answer. */
  static final int STARTUP_PROBE_PERIOD_SECONDS = 5;

  static final int STARTUP_PROBE_FAILURES = 60;

  /** Where the tarball is expected when no property names it (from the project or a module). */
  static List<Path> candidates() {
    String property = System.getProperty(PROPERTY);
    if (property != null && !property.isBlank()) {
      return List.of(Path.of(property));
    }
    return List.of(
        Path.of("app", "target", "ccm4j-image.tar"),
        Path.of("..", "app", "target", "ccm4j-image.tar"));
  }

  /** The image, when its tarball was built. */
  static Optional<RealCcmImage> find() throws IOException {
    for (Path candidate : candidates()) {
      if (Files.isReadable(candidate)) {
        return Optional.of(read(candidate.toAbsolutePath().normalize()));
      }
    }
    return Optional.empty();
  }

  /** The tag and configuration digest of a docker-archive tarball. */
  static RealCcmImage read(Path tarball) throws IOException {
    JsonNode manifest = new ObjectMapper().readTree(extract(tarball, "manifest.json")).get(0);
    String tag = manifest.path("RepoTags").path(0).asText("");
    String config = manifest.path("Config").asText("");
    if (tag.isEmpty() || config.isEmpty()) {
      throw new IOException(tarball + ": manifest.json names no tag or no config");
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(extract(tarball, config));
      return new RealCcmImage(tarball, tag, "sha256:" + HexFormat.of().formatHex(digest));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] extract(Path tarball, String member) throws IOException {
    Process tar = new ProcessBuilder("tar", "-xOf", tarball.toString(), member).start();
    tar.getOutputStream().close();
    byte[] content = tar.getInputStream().readAllBytes();
    String error = new String(tar.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!tar.waitFor(30, TimeUnit.SECONDS) || tar.exitValue() != 0) {
        throw new IOException("cannot read %s from %s: %s".formatted(member, tarball, error));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return content;
  }

  /** Whether a CCM container runs ccm4j's own command line ({@code run ...}). */
  static boolean runsCcm4j(Container container) {
    List<String> words = CcmWorkload.words(container);
    return !words.isEmpty() && words.getFirst().equals("run");
  }

  /**
   * The lab's copy of the manifest's objects: each CCM container of ccm4j's own on this image with
   * the lab's cloud and API server, and a ConfigMap with the cloud configuration in each namespace
   * such a container runs in.
   *
   * @param cloudState the lab's directory of the cloud's state, mounted from the node
   */
  List<HasMetadata> rewrite(List<HasMetadata> objects, String cloudConfig, Path cloudState) {
    Set<String> namespaces = new LinkedHashSet<>();
    for (HasMetadata object : objects) {
      PodSpec spec = podSpec(object);
      if (spec == null) {
        continue;
      }
      Optional<Container> ccm = CcmWorkload.ccmContainer(spec).filter(RealCcmImage::runsCcm4j);
      if (ccm.isEmpty()) {
        continue;
      }
      namespaces.add(
          object.getMetadata().getNamespace() == null
              ? "default"
              : object.getMetadata().getNamespace());
      Container container = ccm.get();
      List<String> args = new ArrayList<>();
      for (String word : CcmWorkload.words(container)) {
        if (!word.startsWith("--cloud-provider")
            && !word.startsWith("--cloud-config")
            && !word.startsWith("--kubeconfig")
            && !word.startsWith("--master")) {
          args.add(word);
        }
      }
      args.add("--cloud-provider=" + CLOUD_PROVIDER);
      args.add("--cloud-config=" + CLOUD_CONFIG_DIRECTORY + "/cloud.yaml");
      container.setCommand(null);
      container.setArgs(args);
      container.setImage(tag);
      container.setImagePullPolicy("Never");
      container.setTerminationMessagePolicy("FallbackToLogsOnError");
      List<EnvVar> env =
          new ArrayList<>(container.getEnv() == null ? List.of() : container.getEnv());
      env.removeIf(
          e ->
              e.getName().equals("KUBERNETES_SERVICE_HOST")
                  || e.getName().equals("KUBERNETES_SERVICE_PORT"));
      env.add(new EnvVar("KUBERNETES_SERVICE_HOST", API_SERVER_HOST, null));
      env.add(new EnvVar("KUBERNETES_SERVICE_PORT", API_SERVER_PORT, null));
      container.setEnv(env);
      List<io.fabric8.kubernetes.api.model.VolumeMount> mounts =
          new ArrayList<>(
              container.getVolumeMounts() == null ? List.of() : container.getVolumeMounts());
      mounts.add(
          new VolumeMountBuilder()
              .withName(CLOUD_CONFIG_MAP)
              .withMountPath(CLOUD_CONFIG_DIRECTORY)
              .withReadOnly(true)
              .build());
      mounts.add(
          new VolumeMountBuilder()
              .withName(CLOUD_STATE_VOLUME)
              .withMountPath(CLOUD_STATE_DIRECTORY)
              .build());
      container.setVolumeMounts(mounts);
      if (container.getLivenessProbe() != null && container.getStartupProbe() == null) {
        // A JVM on the lab's few busy cores may take half a minute to start: the liveness probe
        // starts once it answers, not after the manifest's initial delay.
        container.setStartupProbe(
            new ProbeBuilder(container.getLivenessProbe())
                .withInitialDelaySeconds(null)
                .withPeriodSeconds(STARTUP_PROBE_PERIOD_SECONDS)
                .withFailureThreshold(STARTUP_PROBE_FAILURES)
                .build());
      }
      List<io.fabric8.kubernetes.api.model.Volume> volumes =
          new ArrayList<>(spec.getVolumes() == null ? List.of() : spec.getVolumes());
      volumes.add(
          new VolumeBuilder()
              .withName(CLOUD_CONFIG_MAP)
              .withNewConfigMap()
              .withName(CLOUD_CONFIG_MAP)
              .endConfigMap()
              .build());
      volumes.add(
          new VolumeBuilder()
              .withName(CLOUD_STATE_VOLUME)
              .withNewHostPath()
              .withPath(cloudState.toString())
              .withType("Directory")
              .endHostPath()
              .build());
      spec.setVolumes(volumes);
    }
    List<HasMetadata> rewritten = new ArrayList<>();
    for (String namespace : namespaces) {
      rewritten.add(
          new ConfigMapBuilder()
              .withNewMetadata()
              .withName(CLOUD_CONFIG_MAP)
              .withNamespace(namespace)
              .endMetadata()
              .addToData("cloud.yaml", cloudConfig)
              .build());
    }
    rewritten.addAll(objects);
    return rewritten;
  }

  /** The pod template of a workload, or the pod's own spec; null for anything else. */
  static PodSpec podSpec(HasMetadata object) {
    return switch (object) {
      case Deployment d -> d.getSpec().getTemplate().getSpec();
      case DaemonSet d -> d.getSpec().getTemplate().getSpec();
      case Pod p -> p.getSpec();
      default -> null;
    };
  }
}
