package io.ccm4j.cloudprovider;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownServices;
import io.fabric8.kubernetes.api.model.Service;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The client ranges a Service's load balancer admits (upstream's {@code
 * servicehelpers.GetLoadBalancerSourceRanges}): {@code spec.loadBalancerSourceRanges} when set,
 * else the comma-separated annotation {@value WellKnownAnnotations#LOAD_BALANCER_SOURCE_RANGES},
 * else {@value WellKnownServices#DEFAULT_SOURCE_RANGE}. Providers call it instead of parsing the
 * annotation themselves; the controller calls it before any cloud call so that a malformed value
 * ends as an event naming the field.
 */
public final class LoadBalancerSourceRanges {

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]+");

  private LoadBalancerSourceRanges() {}

  /**
   * The ranges as written (trimmed), each checked to be a CIDR.
   *
   * @throws InvalidServiceFieldException naming the field or annotation that holds a bad range
   */
  public static List<String> of(Service service) throws InvalidServiceFieldException {
    List<String> fromSpec =
        service.getSpec() == null ? null : service.getSpec().getLoadBalancerSourceRanges();
    if (fromSpec != null && !fromSpec.isEmpty()) {
      return parse(fromSpec, WellKnownServices.SOURCE_RANGES_FIELD);
    }
    Map<String, String> annotations =
        service.getMetadata() == null ? null : service.getMetadata().getAnnotations();
    String value =
        annotations == null
            ? ""
            : annotations.getOrDefault(WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, "").trim();
    if (value.isEmpty()) {
      return List.of(WellKnownServices.DEFAULT_SOURCE_RANGE);
    }
    return parse(
        List.of(value.split(",", -1)),
        "metadata.annotations[" + WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES + "]");
  }

  private static List<String> parse(List<String> ranges, String field)
      throws InvalidServiceFieldException {
    List<String> parsed = new ArrayList<>();
    for (String raw : ranges) {
      String range = raw == null ? "" : raw.trim();
      if (!isCidr(range)) {
        throw new InvalidServiceFieldException(
            field,
            "\"%s\" is not an IP range; expecting a comma-separated list of CIDRs such as 10.0.0.0/24,192.168.2.0/24"
                .formatted(range));
      }
      parsed.add(range);
    }
    return List.copyOf(parsed);
  }

  /** Whether {@code value} is {@code address/prefix} with a prefix valid for the address family. */
  public static boolean isCidr(String value) {
    int slash = value.indexOf('/');
    if (slash < 0 || slash != value.lastIndexOf('/')) {
      return false;
    }
    String address = value.substring(0, slash);
    String prefix = value.substring(slash + 1);
    if (!prefix.matches("\\d{1,3}")) {
      return false;
    }
    int bits = Integer.parseInt(prefix);
    boolean v6 = address.contains(":");
    if (v6 ? !IPV6.matcher(address).matches() : !IPV4.matcher(address).matches()) {
      return false;
    }
    if (!v6) {
      for (String octet : address.split("\\.")) {
        if (Integer.parseInt(octet) > 255) {
          return false;
        }
      }
      return bits <= 32;
    }
    try {
      InetAddress.getByName(address); // contains ':', so parsed as a literal: never a name lookup
    } catch (UnknownHostException e) {
      return false;
    }
    return bits <= 128;
  }
}
