package io.ccm4j.cloudprovider;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownServices;
import io.ccm4j.cloudprovider.net.Cidr;
import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The client ranges a Service's load balancer admits (upstream's {@code
 * servicehelpers.GetLoadBalancerSourceRanges}): {@code spec.loadBalancerSourceRanges} when set,
 * else the comma-separated annotation {@value WellKnownAnnotations#LOAD_BALANCER_SOURCE_RANGES},
 * else {@value WellKnownServices#DEFAULT_SOURCE_RANGE}. Providers call it instead of parsing the
 * annotation themselves; the controller calls it before any cloud call so that a malformed value
 * ends as an event naming the field.
 */
public final class LoadBalancerSourceRanges {

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
      if (Cidr.tryParse(range).isEmpty()) {
        throw new InvalidServiceFieldException(
            field,
            "\"%s\" is not an IP range; expecting a comma-separated list of CIDRs such as 10.0.0.0/24,192.168.2.0/24"
                .formatted(range));
      }
      parsed.add(range);
    }
    return List.copyOf(parsed);
  }
}
