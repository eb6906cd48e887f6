package io.ccm4j.doctor;

import io.ccm4j.controllers.Controllers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Whether a pod runs a cloud-controller-manager, judged by what it is rather than by one flag: the
 * signs its containers give (their names, image and binary, the flags only a CCM takes) and the
 * RBAC its ServiceAccount is bound to, each weighed; a container is taken for a CCM when its signs
 * weigh {@value #ENOUGH} or more, so one weak sign (a {@code --cloud-config}, which CSI drivers and
 * cluster-autoscaler pass too) is never enough. Components known to take the same flags (node
 * agents, CSI drivers, cluster-autoscaler, kube-controller-manager) are never taken for one.
 */
final class CcmRecognition {

  /** What the signs of a CCM must weigh together. */
  static final int ENOUGH = 3;

  /** One sign, with what it weighs. */
  record Sign(String what, int weight) {}

  /**
   * How a pod was judged: the container taken for its CCM (or the likeliest one), the signs that
   * counted, and, for a component that is no CCM, why not.
   */
  record Verdict(Container container, List<Sign> signs, Optional<String> notACcm) {

    int weight() {
      return signs.stream().mapToInt(Sign::weight).sum();
    }

    boolean isCcm() {
      return notACcm.isEmpty() && weight() >= ENOUGH;
    }

    /**
     * The signs, in words: {@code image name aws-cloud-controller-manager, flag --cloud-config}.
     */
    String reasons() {
      return String.join(", ", signs.stream().map(Sign::what).toList());
    }
  }

  /** Names of a CCM: {@code cloud-controller-manager}, {@code <x>-cloud-provider}, ... */
  private static final Pattern CCM_NAME =
      Pattern.compile(
          "(.*-)?cloud-controller-manager(-.*)?|.+-cloud-provider|cloud-provider-.+|(.+-)?ccm|ccm4j");

  /** A repository of a CCM's images ({@code cloud-provider-vsphere/cpi/release/manager}). */
  private static final Pattern CCM_REPOSITORY =
      Pattern.compile("cloud-provider-.+|.+-cloud-provider|.*cloud-controller-manager.*");

  /** Tokens of a name that say the component is something else that takes a CCM's flags. */
  private static final List<String> OTHER_COMPONENTS =
      List.of(
          "csi",
          "autoscaler",
          "kube-controller-manager",
          "cloud-node-manager",
          "node-manager",
          "kubelet",
          "kube-proxy",
          "admission",
          "webhook",
          "operator");

  /**
   * Programs that start another one (a shell, an init, Kubernetes' go-runner): a command naming one
   * of them says nothing of what runs.
   */
  private static final Set<String> LAUNCHERS =
      Set.of("sh", "bash", "ash", "dash", "env", "go-runner", "tini", "dumb-init");

  /** The controllers only a CCM runs, by the names and aliases {@code --controllers} takes. */
  private static final Set<String> CCM_CONTROLLERS =
      Stream.of(
              Controllers.CLOUD_NODE,
              Controllers.CLOUD_NODE_LIFECYCLE,
              Controllers.SERVICE_LB,
              Controllers.NODE_ROUTE)
          .flatMap(c -> Stream.of(c.name(), c.alias()))
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  /** Host directories only node agents mount: the CNI's, the kubelet's (CSI sockets, pods). */
  private static final List<String> NODE_AGENT_HOST_PATHS =
      List.of("/etc/cni", "/opt/cni", "/var/lib/kubelet", "/var/lib/cni", "/run/xtables.lock");

  private CcmRecognition() {}

  /**
   * The pod's likeliest CCM container with its signs (those of the RBAC {@code rbacSign} its
   * ServiceAccount is bound to added); empty when no container gives any sign.
   */
  static Optional<Verdict> judge(PodSpec pod, Optional<Sign> rbacSign) {
    if (pod == null || pod.getContainers() == null) {
      return Optional.empty();
    }
    Optional<String> nodeAgent = nodeAgentShape(pod);
    return pod.getContainers().stream()
        .filter(Objects::nonNull)
        .map(container -> judge(container, nodeAgent, rbacSign))
        .filter(verdict -> !verdict.signs().isEmpty())
        .max(
            Comparator.comparing((Verdict v) -> v.isCcm())
                .thenComparing(v -> v.notACcm().isEmpty())
                .thenComparingInt(Verdict::weight));
  }

  /** Whether the pod runs a CCM, judged by its containers alone (a live pod, the lab's). */
  static Optional<Container> ccmContainer(PodSpec pod) {
    return judge(pod, Optional.empty()).filter(Verdict::isCcm).map(Verdict::container);
  }

  private static Verdict judge(
      Container container, Optional<String> nodeAgent, Optional<Sign> rbacSign) {
    List<String> words = CcmWorkload.words(container);
    List<Sign> signs = new ArrayList<>();
    String image = container.getImage() == null ? "" : container.getImage();
    String imageName = imageName(image);
    String binary =
        new CcmCommandLine(container).program().map(CcmRecognition::baseName).orElse("");
    String containerName = container.getName() == null ? "" : container.getName();
    Optional<String> other =
        Stream.of(containerName, imageName, binary)
            .map(name -> name.toLowerCase(Locale.ROOT))
            .flatMap(
                name ->
                    OTHER_COMPONENTS.stream()
                        .filter(
                            token ->
                                Arrays.stream(name.split("[^a-z0-9-]+"))
                                    .anyMatch(part -> containsToken(part, token)))
                        .map(token -> "its name says " + token + " (" + name + ")"))
            .findFirst()
            .or(() -> csiFlags(words))
            .or(() -> nodeAgent);

    // One image may hold several programs (Oracle's cloud-provider-oci holds the CCM, the volume
    // provisioner and the flexvolume installer): a command naming another program says the
    // container runs that one, and the image's name then weighs no more than its repository's.
    boolean runsOtherProgram =
        !binary.isEmpty() && !isCcmName(binary) && !LAUNCHERS.contains(binary);
    if (isCcmName(imageName) && runsOtherProgram) {
      signs.add(new Sign("image name " + imageName + " (running " + binary + ")", 2));
    } else if (isCcmName(imageName)) {
      signs.add(new Sign("image name " + imageName, ENOUGH));
    } else if (isCcmName(binary)) {
      signs.add(new Sign("binary " + binary, ENOUGH));
    } else if (isCcmName(containerName)) {
      signs.add(new Sign("container name " + containerName, ENOUGH));
    } else {
      imageRepository(image)
          .ifPresent(repository -> signs.add(new Sign("image repository " + repository, 2)));
    }
    CcmFlags.value(words, "--cloud-provider")
        .filter(provider -> !provider.isBlank() && !provider.equals("external"))
        .ifPresent(provider -> signs.add(new Sign("flag --cloud-provider=" + provider, ENOUGH)));
    if (CcmFlags.value(words, "--cloud-config").isPresent()) {
      signs.add(new Sign("flag --cloud-config", 1));
    }
    // A CCM's controller named, on or off (-cloud-node): the flag is shown as written, so one that
    // switches a controller off is not read as naming it on.
    CcmFlags.value(words, "--controllers")
        .filter(
            value ->
                Arrays.stream(value.split(","))
                    .map(String::trim)
                    .map(name -> name.startsWith("-") ? name.substring(1) : name)
                    .anyMatch(CCM_CONTROLLERS::contains))
        .ifPresent(value -> signs.add(new Sign("flag --controllers=" + value, 2)));
    CcmFlags.value(words, CcmFlags.LEADER_ELECT_RESOURCE_NAME)
        .ifPresent(
            name ->
                signs.add(
                    isCcmName(name.toLowerCase(Locale.ROOT))
                        ? new Sign("flag " + CcmFlags.LEADER_ELECT_RESOURCE_NAME + "=" + name, 2)
                        : new Sign("flag " + CcmFlags.LEADER_ELECT_RESOURCE_NAME, 1)));
    if (hasFlag(words, CcmFlags.CONFIGURE_CLOUD_ROUTES)) {
      signs.add(new Sign("flag " + CcmFlags.CONFIGURE_CLOUD_ROUTES, 2));
    }
    if (hasFlag(words, CcmFlags.ALLOCATE_NODE_CIDRS) && !signs.isEmpty()) {
      signs.add(new Sign("flag " + CcmFlags.ALLOCATE_NODE_CIDRS, 1));
    }
    if (hasFlag(words, "--cluster-name") && !signs.isEmpty()) {
      signs.add(new Sign("flag --cluster-name", 1));
    }
    if (!signs.isEmpty()) {
      rbacSign.ifPresent(signs::add);
    }
    return new Verdict(container, List.copyOf(signs), other);
  }

  /** A node agent's shape: it mounts the CNI's or the kubelet's host directories. */
  private static Optional<String> nodeAgentShape(PodSpec pod) {
    if (pod.getVolumes() == null) {
      return Optional.empty();
    }
    return pod.getVolumes().stream()
        .filter(Objects::nonNull)
        .map(Volume::getHostPath)
        .filter(Objects::nonNull)
        .map(hostPath -> hostPath.getPath())
        .filter(Objects::nonNull)
        .filter(path -> NODE_AGENT_HOST_PATHS.stream().anyMatch(path::startsWith))
        .findFirst()
        .map(path -> "it mounts the node's " + path + ", as a node agent (CNI, CSI) does");
  }

  /** A CSI driver's flags: the socket it serves or talks to. */
  private static Optional<String> csiFlags(List<String> words) {
    return Stream.of("--csi-address", "--endpoint")
        .flatMap(flag -> CcmFlags.value(words, flag).stream().map(v -> flag + "=" + v))
        .filter(flag -> flag.startsWith("--csi-address") || flag.contains("csi"))
        .findFirst()
        .map(flag -> "it serves a CSI socket (" + flag + ")");
  }

  private static boolean containsToken(String name, String token) {
    return name.equals(token)
        || name.startsWith(token + "-")
        || name.endsWith("-" + token)
        || name.contains("-" + token + "-");
  }

  static boolean isCcmName(String name) {
    return !name.isEmpty() && CCM_NAME.matcher(name.toLowerCase(Locale.ROOT)).matches();
  }

  private static boolean hasFlag(List<String> words, String flag) {
    return words.stream()
        .anyMatch(word -> word != null && (word.equals(flag) || word.startsWith(flag + "=")));
  }

  /** A path segment of the image's repository named like a CCM ({@code cloud-provider-vsphere}). */
  private static Optional<String> imageRepository(String image) {
    int slash = image.lastIndexOf('/');
    if (slash < 0) {
      return Optional.empty();
    }
    return Arrays.stream(image.substring(0, slash).split("/"))
        .filter(segment -> CCM_REPOSITORY.matcher(segment.toLowerCase(Locale.ROOT)).matches())
        .findFirst();
  }

  /**
   * The image's own name, without registry, path or tag: {@code cloud-controller-manager} for
   * {@code registry.k8s.io/provider-aws/cloud-controller-manager:v1.30.0}.
   */
  static String imageName(String image) {
    if (image == null) {
      return "";
    }
    String name = image.substring(image.lastIndexOf('/') + 1);
    int end = name.indexOf('@') >= 0 ? name.indexOf('@') : name.indexOf(':');
    return end >= 0 ? name.substring(0, end) : name;
  }

  private static String baseName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
