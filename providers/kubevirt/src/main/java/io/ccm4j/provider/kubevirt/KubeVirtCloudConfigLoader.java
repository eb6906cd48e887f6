package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudConfigYaml;
import io.ccm4j.cloudprovider.net.DnsNames;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.tls.ClusterTrust;
import io.ccm4j.tls.KubeconfigCredentials;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Reads and checks a {@link KubeVirtCloudConfig}; every error names the source and the field. */
final class KubeVirtCloudConfigLoader {

  private static final int DEFAULT_POLL_INTERVAL_SECONDS = 5;
  private static final int DEFAULT_POLL_TIMEOUT_SECONDS = 300;

  private KubeVirtCloudConfigLoader() {}

  /** K2: the file must exist, be readable and be YAML. */
  static KubeVirtSettings read(Path file) throws CloudConfigException {
    return settings(
        CloudConfigYaml.read(file, KubeVirtCloudConfig.class), file.toString(), file.getParent());
  }

  static KubeVirtSettings parse(String text, String source) throws CloudConfigException {
    return settings(CloudConfigYaml.parse(text, source, KubeVirtCloudConfig.class), source, null);
  }

  private static KubeVirtSettings settings(KubeVirtCloudConfig config, String source, Path base)
      throws CloudConfigException {
    if (config == null) {
      config = new KubeVirtCloudConfig(null, null, null, null, null);
    }
    Optional<String> kubeconfig = kubeconfig(config.kubeconfig(), source, base);
    if (kubeconfig.isPresent()) {
      checkKubeconfig(kubeconfig.get(), source);
    }
    String namespace = namespace(config.namespace(), kubeconfig, source);
    KubeVirtCloudConfig.LoadBalancer lb =
        config.loadBalancer() != null
            ? config.loadBalancer()
            : new KubeVirtCloudConfig.LoadBalancer(null, null, null, null, null, null, null, null);
    KubeVirtCloudConfig.InstancesV2 instances =
        config.instancesV2() != null
            ? config.instancesV2()
            : new KubeVirtCloudConfig.InstancesV2(null, null);
    Map<String, String> infraLabels = infraLabels(config.infraLabels(), source);
    return new KubeVirtSettings(
        kubeconfig,
        namespace,
        infraLabels,
        !Boolean.FALSE.equals(lb.enabled()),
        seconds(lb.creationPollInterval(), DEFAULT_POLL_INTERVAL_SECONDS),
        seconds(lb.creationPollTimeout(), DEFAULT_POLL_TIMEOUT_SECONDS),
        Boolean.TRUE.equals(lb.selectorless()),
        Boolean.TRUE.equals(lb.enableEpsController()),
        new TenantFieldAllowList(
            allowedAnnotations(lb.allowedAnnotations(), source),
            Boolean.TRUE.equals(lb.allowExternalIps()),
            Boolean.TRUE.equals(lb.allowLoadBalancerIp())),
        !Boolean.FALSE.equals(instances.enabled()),
        !Boolean.FALSE.equals(instances.zoneAndRegionEnabled()));
  }

  /**
   * Every entry needs a key and a value ({@code ""} is a value; YAML's {@code team:} without one is
   * not), checked before the map is copied.
   */
  private static Map<String, String> infraLabels(Map<String, String> labels, String source)
      throws CloudConfigException {
    if (labels == null) {
      return Map.of();
    }
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (label.getKey() == null || label.getKey().isBlank()) {
        throw new CloudConfigException(
            "%s: field \"infraLabels\": a label has an empty key".formatted(source));
      }
      if (label.getValue() == null) {
        throw new CloudConfigException(
            ("%s: field \"infraLabels.%s\" has no value; write \"\" for an empty one")
                .formatted(source, label.getKey()));
      }
    }
    return Map.copyOf(labels);
  }

  /** Exact annotation keys, or prefixes with one {@code *} at the end. */
  private static List<String> allowedAnnotations(List<String> entries, String source)
      throws CloudConfigException {
    if (entries == null) {
      return List.of();
    }
    for (int i = 0; i < entries.size(); i++) {
      String entry = entries.get(i);
      int wildcard = entry == null ? -1 : entry.indexOf(TenantFieldAllowList.PREFIX_WILDCARD);
      if (entry == null || entry.isBlank() || (wildcard >= 0 && wildcard != entry.length() - 1)) {
        throw new CloudConfigException(
            ("%s: field \"loadBalancer.allowedAnnotations[%d]\": an annotation key, or a prefix"
                    + " ending in * (example.com/*), got \"%s\"")
                .formatted(source, i, entry));
      }
    }
    return List.copyOf(entries);
  }

  /** K5 table: a missing value, or one ≤ 0, means the default. */
  private static Duration seconds(Integer value, int fallback) {
    return Duration.ofSeconds(value == null || value <= 0 ? fallback : value);
  }

  /**
   * The kubeconfig's content, read now (K9). A relative path is looked up in the working directory,
   * as upstream does; when no such file is there, beside the cloud config (ccm4j's, so a Secret
   * holding both files works wherever it is mounted).
   */
  private static Optional<String> kubeconfig(String path, String source, Path base)
      throws CloudConfigException {
    if (path == null || path.isBlank()) {
      return Optional.empty();
    }
    Path file = Path.of(path);
    String tried = file.toAbsolutePath().toString();
    if (!file.isAbsolute() && !Files.exists(file) && base != null) {
      Path besideConfig = base.resolve(file);
      tried += " or " + besideConfig.toAbsolutePath();
      if (Files.exists(besideConfig)) {
        file = besideConfig;
      }
    }
    try {
      return Optional.of(Files.readString(file));
    } catch (IOException e) {
      throw new CloudConfigException(
          "%s: field \"kubeconfig\": cannot read the infrastructure cluster's kubeconfig %s: %s"
              .formatted(
                  source,
                  tried,
                  e instanceof NoSuchFileException ? "no such file" : e.getMessage()),
          e);
    }
  }

  /**
   * A kubeconfig the client can use, checked at start (before the manager campaigns for the Lease):
   * fabric8 would otherwise fall back to {@code kubernetes.default.svc} for one without a current
   * context, and fail only at the first call.
   */
  private static void checkKubeconfig(String kubeconfig, String source)
      throws CloudConfigException {
    Config parsed;
    try {
      parsed = Serialization.unmarshal(kubeconfig, Config.class);
    } catch (RuntimeException e) {
      throw notAKubeconfig(source, firstLine(e.getMessage()), e);
    }
    if (parsed == null) {
      throw notAKubeconfig(source, "it is empty", null);
    }
    String current = parsed.getCurrentContext();
    if (current == null || current.isBlank()) {
      throw notAKubeconfig(source, "it has no current-context", null);
    }
    NamedContext context =
        Objects.requireNonNullElse(parsed.getContexts(), List.<NamedContext>of()).stream()
            .filter(c -> current.equals(c.getName()) && c.getContext() != null)
            .findFirst()
            .orElseThrow(
                () -> notAKubeconfig(source, "no context \"%s\"".formatted(current), null));
    String clusterName = context.getContext().getCluster();
    NamedCluster cluster =
        Objects.requireNonNullElse(parsed.getClusters(), List.<NamedCluster>of()).stream()
            .filter(c -> c.getName() != null && c.getName().equals(clusterName))
            .findFirst()
            .orElseThrow(
                () ->
                    notAKubeconfig(
                        source,
                        "context \"%s\" names no cluster of the file (\"%s\")"
                            .formatted(current, clusterName),
                        null));
    if (cluster.getCluster() == null
        || cluster.getCluster().getServer() == null
        || cluster.getCluster().getServer().isBlank()) {
      throw notAKubeconfig(source, "cluster \"%s\" has no server".formatted(clusterName), null);
    }
    io.fabric8.kubernetes.client.Config client;
    try {
      client = io.fabric8.kubernetes.client.Config.fromKubeconfig(kubeconfig);
    } catch (RuntimeException e) {
      throw notAKubeconfig(source, firstLine(e.getMessage()), e);
    }
    // What the client is built from, read now rather than once the Lease is won: the user's token
    // file and client key, the cluster's CA.
    try {
      KubeconfigCredentials.complete(client, parsed, null);
      ClusterTrust.trustManagers(client);
      SSLUtils.keyManagers(client);
    } catch (GeneralSecurityException | IOException | RuntimeException e) {
      throw notAKubeconfig(source, firstLine(KubernetesErrors.reason(e)), e);
    }
  }

  private static CloudConfigException notAKubeconfig(
      String source, String problem, Throwable cause) {
    return new CloudConfigException(
        "%s: field \"kubeconfig\": not a usable kubeconfig of the infrastructure cluster: %s"
            .formatted(source, problem),
        cause);
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("").strip();
  }

  /**
   * K6: the explicit namespace; else the kubeconfig's current context's, or {@code default}. In
   * cluster, upstream goes on with an empty namespace (K6 Quirk); ccm4j refuses to start.
   */
  private static String namespace(String explicit, Optional<String> kubeconfig, String source)
      throws CloudConfigException {
    String namespace = explicit;
    if (namespace == null || namespace.isBlank()) {
      if (kubeconfig.isEmpty()) {
        throw new CloudConfigException(
            ("%s: field \"namespace\" is required when \"kubeconfig\" is empty (in-cluster mode):"
                    + " name the infrastructure namespace that holds the tenant cluster's"
                    + " VirtualMachineInstances")
                .formatted(source));
      }
      namespace = contextNamespace(kubeconfig.get(), source);
    }
    if (!DnsNames.isLabel(namespace)) {
      throw new CloudConfigException(
          "%s: field \"namespace\" must be a namespace name (a DNS label), got \"%s\""
              .formatted(source, namespace));
    }
    return namespace;
  }

  private static String contextNamespace(String kubeconfig, String source)
      throws CloudConfigException {
    Config parsed;
    try {
      parsed = Serialization.unmarshal(kubeconfig, Config.class);
    } catch (RuntimeException e) {
      throw new CloudConfigException(
          "%s: field \"kubeconfig\": not a kubeconfig: %s".formatted(source, e.getMessage()), e);
    }
    if (parsed == null || parsed.getContexts() == null) {
      return "default";
    }
    for (NamedContext context : parsed.getContexts()) {
      if (context.getName() != null
          && context.getName().equals(parsed.getCurrentContext())
          && context.getContext() != null
          && context.getContext().getNamespace() != null
          && !context.getContext().getNamespace().isBlank()) {
        return context.getContext().getNamespace();
      }
    }
    return "default";
  }
}
