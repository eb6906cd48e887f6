package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudConfigYaml;
import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.net.Cidr;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Reads and checks a {@link LocalCloudConfig}; every error names the source and the field. */
final class LocalCloudConfigLoader {

  private static final Cidr LOOPBACK = Cidr.parse("127.0.0.0/8");

  /** No timeout or interval of a load balancer on one machine is sensibly longer. */
  private static final Duration MAX_DURATION = Duration.ofHours(24);

  private LocalCloudConfigLoader() {}

  static LocalCloudSettings read(Path file) throws CloudConfigException {
    return settings(CloudConfigYaml.read(file, LocalCloudConfig.class), file.toString());
  }

  static LocalCloudSettings parse(String text, String source) throws CloudConfigException {
    return settings(CloudConfigYaml.parse(text, source, LocalCloudConfig.class), source);
  }

  private static LocalCloudSettings settings(LocalCloudConfig config, String source)
      throws CloudConfigException {
    LocalCloudSettings d = LocalCloudSettings.defaults();
    if (config == null) {
      return d;
    }
    LocalCloudConfig.HealthCheck hc =
        config.healthCheck() == null
            ? new LocalCloudConfig.HealthCheck(null, null, null, null, null)
            : config.healthCheck();
    LocalCloudSettings settings =
        new LocalCloudSettings(
            pool(config.addressPool(), d.addressPool(), source),
            balancing(config.balancing(), source),
            duration(config.connectTimeout(), d.connectTimeout(), source, "connectTimeout"),
            duration(config.drainTimeout(), d.drainTimeout(), source, "drainTimeout"),
            duration(config.udpIdleTimeout(), d.udpIdleTimeout(), source, "udpIdleTimeout"),
            config.udpMaxSessions() == null ? d.udpMaxSessions() : config.udpMaxSessions(),
            duration(hc.interval(), d.healthCheckInterval(), source, "healthCheck.interval"),
            duration(hc.timeout(), d.healthCheckTimeout(), source, "healthCheck.timeout"),
            atLeastOne(hc.healthyThreshold(), d.healthyThreshold(), source, "healthyThreshold"),
            atLeastOne(
                hc.unhealthyThreshold(), d.unhealthyThreshold(), source, "unhealthyThreshold"),
            hc.kubeProxyPort() == null ? d.kubeProxyHealthPort() : hc.kubeProxyPort(),
            backendNetworks(config.backendNetworks(), source),
            routeTable(config.routeTable(), source));
    require(
        settings.kubeProxyHealthPort() >= 1 && settings.kubeProxyHealthPort() <= 65535,
        source,
        "healthCheck.kubeProxyPort",
        "must be a port between 1 and 65535, got " + settings.kubeProxyHealthPort());
    require(
        positive(settings.connectTimeout()),
        source,
        "connectTimeout",
        "must be positive, got " + config.connectTimeout());
    require(
        positive(settings.udpIdleTimeout()),
        source,
        "udpIdleTimeout",
        "must be positive, got " + config.udpIdleTimeout());
    require(
        settings.udpMaxSessions() >= 1,
        source,
        "udpMaxSessions",
        "must be at least 1, got " + settings.udpMaxSessions());
    require(
        positive(settings.healthCheckInterval()),
        source,
        "healthCheck.interval",
        "must be positive, got " + hc.interval());
    require(
        positive(settings.healthCheckTimeout()),
        source,
        "healthCheck.timeout",
        "must be positive, got " + hc.timeout());
    return settings;
  }

  private static Cidr pool(String text, Cidr fallback, String source) throws CloudConfigException {
    if (text == null) {
      return fallback;
    }
    Cidr pool;
    try {
      pool = Cidr.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CloudConfigException(
          "%s: field \"addressPool\": %s".formatted(source, e.getMessage()));
    }
    // Load balancers listen on this machine only: traffic must stay on loopback.
    require(
        pool.family() == Cidr.Family.IPv4
            && pool.prefixLength() >= 8
            && LOOPBACK.contains(pool.addressAt(0))
            && pool.prefixLength() <= 30,
        source,
        "addressPool",
        "must be an IPv4 loopback network between /8 and /30 inside 127.0.0.0/8, got " + text);
    return pool;
  }

  /**
   * Networks of this machine that are not this network namespace's own (a lab's nodes in network
   * namespaces of their own, behind a bridge): private IPv4 only, so that traffic never leaves for
   * the internet.
   */
  private static List<Cidr> backendNetworks(List<String> texts, String source)
      throws CloudConfigException {
    if (texts == null) {
      return List.of();
    }
    List<Cidr> networks = new ArrayList<>();
    for (String text : texts) {
      Cidr network;
      try {
        network = Cidr.parse(String.valueOf(text));
      } catch (IllegalArgumentException e) {
        throw new CloudConfigException(
            "%s: field \"backendNetworks\": %s".formatted(source, e.getMessage()));
      }
      require(
          network.family() == Cidr.Family.IPv4
              && PRIVATE.stream().anyMatch(p -> p.contains(network)),
          source,
          "backendNetworks",
          "must be private IPv4 networks (inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16),"
              + " got "
              + text);
      networks.add(network);
    }
    return List.copyOf(networks);
  }

  /** The file that keeps the route table: an absolute path in a directory that exists. */
  private static Optional<Path> routeTable(String text, String source) throws CloudConfigException {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    Path file;
    try {
      file = Path.of(text);
    } catch (InvalidPathException e) {
      throw new CloudConfigException(
          "%s: field \"routeTable\": \"%s\" is not a path".formatted(source, text));
    }
    require(file.isAbsolute(), source, "routeTable", "must be an absolute path, got " + text);
    require(
        file.getParent() != null && Files.isDirectory(file.getParent()),
        source,
        "routeTable",
        "must be in a directory that exists, got " + text);
    require(
        !Files.isDirectory(file), source, "routeTable", "must be a file, not a directory: " + text);
    return Optional.of(file);
  }

  private static final List<Cidr> PRIVATE =
      List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("172.16.0.0/12"), Cidr.parse("192.168.0.0/16"));

  private static LocalCloudSettings.Balancing balancing(String text, String source)
      throws CloudConfigException {
    if (text == null) {
      return LocalCloudSettings.Balancing.ROUND_ROBIN;
    }
    for (LocalCloudSettings.Balancing b : LocalCloudSettings.Balancing.values()) {
      if (b.configName.equals(text)) {
        return b;
      }
    }
    throw new CloudConfigException(
        "%s: field \"balancing\" must be one of %s, got \"%s\""
            .formatted(
                source,
                Arrays.stream(LocalCloudSettings.Balancing.values())
                    .map(b -> b.configName)
                    .collect(Collectors.joining(", ")),
                text));
  }

  private static int atLeastOne(Integer value, int fallback, String source, String field)
      throws CloudConfigException {
    if (value == null) {
      return fallback;
    }
    require(value >= 1, source, "healthCheck." + field, "must be at least 1, got " + value);
    return value;
  }

  /** A Go duration ({@link GoDurations}) of at most 24h. */
  static Duration duration(String text, Duration fallback, String source, String field)
      throws CloudConfigException {
    if (text == null) {
      return fallback;
    }
    Duration value;
    try {
      value = GoDurations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CloudConfigException(
          "%s: field \"%s\": \"%s\" is not a duration (examples: 500ms, 2s, 1m30s)"
              .formatted(source, field, text));
    }
    require(value.compareTo(MAX_DURATION) <= 0, source, field, "must be at most 24h, got " + text);
    return value;
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  private static void require(boolean ok, String source, String field, String problem)
      throws CloudConfigException {
    if (!ok) {
      throw new CloudConfigException("%s: field \"%s\" %s".formatted(source, field, problem));
    }
  }
}
