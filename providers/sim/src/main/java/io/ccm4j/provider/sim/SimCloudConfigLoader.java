package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudConfigYaml;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.net.IpAddresses;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and checks a {@link SimCloudConfig}; every error names the file, the line and the field.
 */
final class SimCloudConfigLoader {

  private SimCloudConfigLoader() {}

  static SimCloudConfig read(Path file) throws CloudConfigException {
    return checked(CloudConfigYaml.read(file, SimCloudConfig.class), file.toString());
  }

  static SimCloudConfig parse(String text, String source) throws CloudConfigException {
    return checked(CloudConfigYaml.parse(text, source, SimCloudConfig.class), source);
  }

  private static SimCloudConfig checked(SimCloudConfig config, String source)
      throws CloudConfigException {
    if (config == null) {
      config =
          new SimCloudConfig(0, 0, 0, 0, null, null, null, null, null, 0, null, null, null, null);
    }
    validate(config, source);
    return config;
  }

  private static void validate(SimCloudConfig config, String source) throws CloudConfigException {
    require(config.latencyMs() >= 0, source, "latencyMs", "must not be negative");
    require(config.jitterMs() >= 0, source, "jitterMs", "must not be negative");
    require(
        config.errorRate() >= 0 && config.errorRate() <= 1,
        source,
        "errorRate",
        "must be between 0 and 1");
    require(
        config.hangRate() >= 0 && config.hangRate() <= 1,
        source,
        "hangRate",
        "must be between 0 and 1");
    require(
        config.hangMs() == null || config.hangMs() >= 0, source, "hangMs", "must not be negative");
    require(config.qps() >= 0, source, "qps", "must not be negative");
    require(config.burst() == null || config.burst() >= 1, source, "burst", "must be at least 1");
    if (config.accountLimit() != null) {
      require(
          config.qps() == 0 && config.burst() == null,
          source,
          "accountLimit",
          "replaces the top-level qps and burst; give one or the other");
      require(config.accountLimit().qps() > 0, source, "accountLimit.qps", "must be positive");
      require(
          config.accountLimit().burst() == null || config.accountLimit().burst() >= 1,
          source,
          "accountLimit.burst",
          "must be at least 1");
    }
    require(
        config.instancesPerCall() == null
            || (config.instancesPerCall() >= 1
                && config.instancesPerCall() <= SimCloudConfig.MAX_INSTANCES_PER_CALL),
        source,
        "instancesPerCall",
        "must be between 1 and " + SimCloudConfig.MAX_INSTANCES_PER_CALL);
    if (config.generate() != null) {
      require(config.generate().count() >= 0, source, "generate.count", "must not be negative");
      if (config.generate().addressFamilies() != null) {
        for (String family : config.generate().addressFamilies()) {
          require(
              family.equals("IPv4") || family.equals("IPv6"),
              source,
              "generate.addressFamilies",
              "must list IPv4 and/or IPv6, got " + family);
        }
      }
    }
    if (config.loadBalancers() != null) {
      SimCloudConfig.LoadBalancers lb = config.loadBalancers();
      if (lb.ingressPool() != null) {
        try {
          IpPool.parse(lb.ingressPool());
        } catch (IllegalArgumentException e) {
          require(false, source, "loadBalancers.ingressPool", e.getMessage());
        }
      }
      require(
          lb.provisioningRetries() == null || lb.provisioningRetries() >= 0,
          source,
          "loadBalancers.provisioningRetries",
          "must not be negative");
      require(
          lb.provisioningRetryAfterMs() == null || lb.provisioningRetryAfterMs() > 0,
          source,
          "loadBalancers.provisioningRetryAfterMs",
          "must be positive");
      require(
          lb.ensureCalls() == null || lb.ensureCalls() >= 1,
          source,
          "loadBalancers.ensureCalls",
          "must be at least 1");
      require(
          lb.servicesPerCall() == null
              || (lb.servicesPerCall() >= 1
                  && lb.servicesPerCall() <= SimCloudConfig.MAX_INSTANCES_PER_CALL),
          source,
          "loadBalancers.servicesPerCall",
          "must be between 1 and " + SimCloudConfig.MAX_INSTANCES_PER_CALL);
    }
    if (config.instances() != null) {
      for (int i = 0; i < config.instances().size(); i++) {
        SimCloudConfig.Instance instance = config.instances().get(i);
        String field = "instances[" + i + "]";
        require(
            instance.name() != null && !instance.name().isBlank(),
            source,
            field + ".name",
            "is required");
        if (instance.state() != null) {
          require(
              instance.state().equals("running") || instance.state().equals("shutdown"),
              source,
              field + ".state",
              "must be running or shutdown, got " + instance.state());
        }
        if (instance.addresses() != null) {
          for (String address : instance.addresses()) {
            require(
                IpAddresses.isIp(address),
                source,
                field + ".addresses",
                "\"" + address + "\" is not an IP address");
          }
        }
      }
    }
  }

  /** The load balancer facet the config describes (defaults when it has no such section). */
  static SimLoadBalancers loadBalancers(
      SimCloudConfig config, SimLoadBalancers.Gate gate, SimCallJournal journal) {
    SimCloudConfig.LoadBalancers lb =
        config.loadBalancers() == null
            ? new SimCloudConfig.LoadBalancers(null, null, null, null, null)
            : config.loadBalancers();
    return new SimLoadBalancers(
        gate,
        IpPool.parse(
            lb.ingressPool() == null ? SimCloudConfig.DEFAULT_INGRESS_POOL : lb.ingressPool()),
        lb.provisioningRetries() == null ? 0 : lb.provisioningRetries(),
        java.time.Duration.ofMillis(
            lb.provisioningRetryAfterMs() == null
                ? SimCloudConfig.DEFAULT_PROVISIONING_RETRY_AFTER_MS
                : lb.provisioningRetryAfterMs()),
        lb.ensureCalls() == null ? 1 : lb.ensureCalls(),
        journal,
        lb.servicesPerCall() == null ? 1 : lb.servicesPerCall());
  }

  /** The instances the config describes, explicit ones first; names must be unique. */
  static List<SimInstance> instances(SimCloudConfig config, String source)
      throws CloudConfigException {
    Map<String, SimInstance> byName = new LinkedHashMap<>();
    if (config.instances() != null) {
      for (SimCloudConfig.Instance spec : config.instances()) {
        List<NodeAddress> addresses = new ArrayList<>();
        if (spec.addresses() != null) {
          spec.addresses().forEach(a -> addresses.add(NodeAddress.internalIp(a)));
        }
        addresses.add(NodeAddress.hostname(spec.name()));
        add(
            byName,
            new SimInstance(
                spec.name(),
                orEmpty(spec.region()),
                orEmpty(spec.zone()),
                orEmpty(spec.instanceType()),
                addresses,
                spec.labels() == null ? Map.of() : spec.labels(),
                "shutdown".equals(spec.state())
                    ? SimInstance.State.SHUTDOWN
                    : SimInstance.State.RUNNING),
            source);
      }
    }
    SimCloudConfig.Generate generate = config.generate();
    if (generate != null) {
      List<String[]> zones = new ArrayList<>();
      Map<String, List<String>> regions =
          generate.regions() == null
              ? Map.of("sim-region", List.of("sim-zone"))
              : generate.regions();
      regions.forEach(
          (region, regionZones) ->
              regionZones.forEach(zone -> zones.add(new String[] {region, zone})));
      List<String> types =
          generate.instanceTypes() == null || generate.instanceTypes().isEmpty()
              ? List.of("sim.standard")
              : generate.instanceTypes();
      List<String> families =
          generate.addressFamilies() == null || generate.addressFamilies().isEmpty()
              ? List.of("IPv4")
              : generate.addressFamilies();
      String prefix = generate.prefix() == null ? "node-" : generate.prefix();
      for (int i = 0; i < generate.count(); i++) {
        String name = prefix + i;
        String[] zone = zones.isEmpty() ? new String[] {"", ""} : zones.get(i % zones.size());
        List<NodeAddress> addresses = new ArrayList<>();
        if (families.contains("IPv4")) {
          addresses.add(NodeAddress.internalIp(ipv4(i)));
        }
        if (families.contains("IPv6")) {
          addresses.add(NodeAddress.internalIp("fd00:5eed::" + Integer.toHexString(i + 1)));
        }
        addresses.add(NodeAddress.hostname(name));
        add(
            byName,
            new SimInstance(
                name,
                zone[0],
                zone[1],
                types.get(i % types.size()),
                addresses,
                Map.of(),
                SimInstance.State.RUNNING),
            source);
      }
    }
    return List.copyOf(byName.values());
  }

  /** 10.128.0.1 onwards: the generated instance's IPv4 address. */
  static String ipv4(int index) {
    int n = index + 1;
    return "10.%d.%d.%d".formatted(128 + ((n >> 16) & 0x7f), (n >> 8) & 0xff, n & 0xff);
  }

  private static void add(Map<String, SimInstance> byName, SimInstance instance, String source)
      throws CloudConfigException {
    if (byName.putIfAbsent(instance.name(), instance) != null) {
      throw new CloudConfigException(
          "%s: instance \"%s\" is defined twice".formatted(source, instance.name()));
    }
  }

  private static void require(boolean ok, String source, String field, String problem)
      throws CloudConfigException {
    if (!ok) {
      throw new CloudConfigException("%s: field \"%s\" %s".formatted(source, field, problem));
    }
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }
}
