package io.ccm4j.controllers.nodeipam;

import io.ccm4j.cloudprovider.net.Cidr;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Node IPAM's metrics (upstream's {@code nodeipam/ipam/cidrset/metrics.go}). */
final class NodeIpamControllerMetrics {

  NodeIpamControllerMetrics(MeterRegistry registry, RangeAllocator allocator) {
    for (Cidr cidr : allocator.clusterCidrs()) {
      Gauge.builder("node_ipam_controller_cidrset_usage_cidrs", allocator, a -> a.usage(cidr))
          .tag("clusterCIDR", cidr.toString())
          .description("[ALPHA] Gauge measuring percentage of allocated CIDRs.")
          .register(registry);
    }
  }
}
