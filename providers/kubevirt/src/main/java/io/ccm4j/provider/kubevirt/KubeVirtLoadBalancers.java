package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PortStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tenant Service of type LoadBalancer is a Service of type LoadBalancer in the infrastructure
 * namespace, whose ingress the infrastructure cluster's own load balancer assigns and this provider
 * copies back (K40). The {@code nodes} of each call are not used (K46): the infrastructure Service
 * selects the tenant cluster's worker VMIs' virt-launcher pods itself.
 *
 * <p>Waiting for the ingress differs from upstream (K48): instead of holding a worker for up to
 * {@code creationPollTimeout} inside the call, an ensure that finds no ingress yet asks to be
 * called again after {@code creationPollInterval} ({@link RetryAfterException#inProgress}, which
 * the service controller logs without a Warning event, as upstream's wait has none), for up to
 * {@code creationPollTimeout} after the infrastructure Service was created. The first call after
 * that fails once with upstream's "timed out waiting for the condition", which the service
 * controller records as a Warning event, as upstream's timeout is; every later call returns the
 * empty status, as upstream's next call does, and the periodic re-ensure copies an ingress that
 * comes later (K110). Which Services have had their timeout reported is kept in memory: a new
 * leader reports a Service still without an ingress once more.
 */
final class KubeVirtLoadBalancers implements LoadBalancer {

  private static final Logger log = LoggerFactory.getLogger(KubeVirtLoadBalancers.class);

  private final KubernetesClient infra;
  private final InfraServices services;
  private final Duration pollInterval;
  private final Duration pollTimeout;
  private final Clock clock;

  /** The UIDs of the infrastructure Services whose wait for an ingress has been reported. */
  private final Set<String> timedOut = ConcurrentHashMap.newKeySet();

  KubeVirtLoadBalancers(
      KubernetesClient infra,
      InfraServices services,
      Duration pollInterval,
      Duration pollTimeout,
      Clock clock) {
    this.infra = infra;
    this.services = services;
    this.pollInterval = pollInterval;
    this.pollTimeout = pollTimeout;
    this.clock = clock;
  }

  @Override
  public String loadBalancerName(String clusterName, Service service) {
    return InfraServices.name(service);
  }

  /** K51. */
  @Override
  public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service)
      throws CloudException {
    return infraService(service).map(KubeVirtLoadBalancers::status);
  }

  /** K47, K48. */
  @Override
  public LoadBalancerStatus ensureLoadBalancer(
      String clusterName, Service service, List<Node> nodes) throws CloudException {
    Optional<Service> existing = infraService(service);
    Service infraService;
    if (existing.isEmpty()) {
      Service desired = services.desired(service);
      try {
        infraService = infra.services().resource(desired).create();
      } catch (KubernetesClientException e) {
        throw KubeVirtInstances.failed("creating Service " + where(service), e);
      }
      log.info(
          "created infrastructure Service {} for {}/{}",
          where(service),
          service.getMetadata().getNamespace(),
          service.getMetadata().getName());
    } else {
      infraService = follow(existing.get(), service);
    }
    LoadBalancerStatus status = status(infraService);
    String uid = infraService.getMetadata().getUid();
    if (!status.ingress().isEmpty()) {
      if (uid != null) {
        timedOut.remove(uid);
      }
    } else if (waitingForIngress(infraService)) {
      // Upstream waits inside the call, silently: a pending ingress is no Warning event either.
      throw RetryAfterException.inProgress(
          "infrastructure Service %s has no ingress yet".formatted(where(service)), pollInterval);
    } else if (uid != null && timedOut.add(uid)) {
      throw new CloudException(
          "timed out waiting for the condition: infrastructure Service %s has no ingress %s after its creation (loadBalancer.creationPollTimeout)"
              .formatted(where(service), GoDurations.format(pollTimeout)));
    }
    // The service controller records each as a Warning event on the tenant Service.
    return new LoadBalancerStatus(status.ingress(), services.tenantFields().dropped(service));
  }

  /** K50: follows the tenant Service; a missing infrastructure Service is an error. */
  @Override
  public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException {
    Service existing =
        infraService(service)
            .orElseThrow(
                () ->
                    new CloudException(
                        "infrastructure Service %s not found".formatted(where(service))));
    follow(existing, service);
  }

  /** K52: no wait, no finalizer. */
  @Override
  public void ensureLoadBalancerDeleted(String clusterName, Service service) throws CloudException {
    Optional<Service> existing = infraService(service);
    if (existing.isEmpty()) {
      return;
    }
    if (existing.get().getMetadata().getUid() != null) {
      timedOut.remove(existing.get().getMetadata().getUid());
    }
    try {
      infra.services().inNamespace(services.namespace()).withName(name(service)).delete();
    } catch (KubernetesClientException e) {
      throw KubeVirtInstances.failed("deleting Service " + where(service), e);
    }
    log.info("deleted infrastructure Service {}", where(service));
  }

  /**
   * Everything of the cloud config and the manager that shapes an infrastructure Service: the
   * cluster name is in its selector and labels (K42, K46), so a corrected {@code --cluster-name}
   * must reach existing Services at the next leader's start, not only at the periodic re-ensure.
   */
  @Override
  public String fingerprint() {
    return "kubevirt/cluster=%s/selectorless=%s/eps=%s/infraLabels=%s/tenantFields=%s"
        .formatted(
            services.clusterName(),
            services.selectorless(),
            services.epsController(),
            new TreeMap<>(services.infraLabels()),
            services.tenantFields());
  }

  private Service follow(Service existing, Service tenant) throws CloudException {
    if (!services.needsUpdate(existing, tenant)) {
      return existing;
    }
    Service updated = existing;
    services.update(updated, tenant);
    try {
      Service written = infra.services().resource(updated).update();
      log.info("updated infrastructure Service {}", where(tenant));
      return written;
    } catch (KubernetesClientException e) {
      throw KubeVirtInstances.failed("updating Service " + where(tenant), e);
    }
  }

  private boolean waitingForIngress(Service infraService) {
    String created = infraService.getMetadata().getCreationTimestamp();
    if (created == null) {
      return true;
    }
    return Instant.parse(created).plus(pollTimeout).isAfter(clock.instant());
  }

  private Optional<Service> infraService(Service tenant) throws CloudException {
    try {
      return Optional.ofNullable(
          infra.services().inNamespace(services.namespace()).withName(name(tenant)).get());
    } catch (KubernetesClientException e) {
      throw KubeVirtInstances.failed("reading Service " + where(tenant), e);
    }
  }

  /**
   * K49: the infrastructure status as it is, entry by entry and in order: ip, hostname, ipMode and
   * ports. An entry with neither ip nor hostname is skipped (the API server would refuse it).
   */
  static LoadBalancerStatus status(Service infraService) {
    List<LoadBalancerStatus.Ingress> ingress = new ArrayList<>();
    if (infraService.getStatus() != null
        && infraService.getStatus().getLoadBalancer() != null
        && infraService.getStatus().getLoadBalancer().getIngress() != null) {
      for (LoadBalancerIngress entry : infraService.getStatus().getLoadBalancer().getIngress()) {
        boolean hasIp = entry.getIp() != null && !entry.getIp().isEmpty();
        boolean hasHostname = entry.getHostname() != null && !entry.getHostname().isEmpty();
        if (!hasIp && !hasHostname) {
          continue;
        }
        List<LoadBalancerStatus.PortStatus> ports = new ArrayList<>();
        if (entry.getPorts() != null) {
          for (PortStatus port : entry.getPorts()) {
            if (port.getPort() != null) {
              ports.add(
                  new LoadBalancerStatus.PortStatus(
                      port.getPort(), port.getProtocol(), port.getError()));
            }
          }
        }
        ingress.add(
            new LoadBalancerStatus.Ingress(
                entry.getIp(), entry.getHostname(), hasIp ? entry.getIpMode() : "", ports));
      }
    }
    return new LoadBalancerStatus(ingress);
  }

  private static String name(Service tenant) {
    return InfraServices.name(tenant);
  }

  private String where(Service tenant) {
    return services.namespace() + "/" + name(tenant);
  }
}
