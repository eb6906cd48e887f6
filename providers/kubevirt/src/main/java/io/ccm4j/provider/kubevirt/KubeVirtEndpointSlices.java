package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.ccm4j.runtime.client.Conflicts;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.controller.QueueWorkers;
import io.ccm4j.runtime.workqueue.RateLimiters;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream kubevirt's EndpointSlice controller ({@code kubevirt_eps_controller}, §4): an
 * infrastructure Service without a selector (a tenant Service with {@code externalTrafficPolicy:
 * Local}, K46) gets EndpointSlices that name the VMIs of the tenant nodes that run the tenant
 * Service's endpoints, so the infrastructure load balancer sends traffic only to those and the
 * client's address is kept (K111).
 *
 * <p>Where it deliberately differs from upstream (docs/kubevirt.md lists each):
 *
 * <ul>
 *   <li>only Services of this tenant cluster (their cluster-name label) are touched, so tenants
 *       that share an infrastructure namespace do not rewrite each other's slices (K71 b, K72);
 *   <li>every tenant EndpointSlice counts, not only those an earlier pass has seen (K71 b);
 *   <li>VMIs are watched, so a VMI that stops, migrates or changes address updates the slices
 *       (K121);
 *   <li>a VMI's endpoint is ready only while a tenant endpoint on its node is, and serving and
 *       terminating follow them too, not the VMI's phase alone (K121, {@link #conditions});
 *   <li>each address type gets the VMI's addresses of its family, not the primary address in every
 *       slice (K74);
 *   <li>a tenant endpoint without a node name is skipped (K74), and an endpoint stays in the slice
 *       it is in, slices being updated in place, so no slice is ever replaced by index (K75);
 *   <li>its own writes are remembered until its informer shows them, or the API server shows a
 *       slice the informer never held gone ({@link WrittenEndpointSlices}), so a pass on a cache
 *       still behind creates no second slice and sends no update from an old version; a conflict is
 *       looked at again quietly (K75);
 *   <li>only slices this controller manages are deleted (K73);
 *   <li>a key that keeps failing backs off to 1000 s and is never dropped (K70 drops it after 25).
 * </ul>
 */
final class KubeVirtEndpointSlices implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubeVirtEndpointSlices.class);

  /** Its name in {@code --controllers} (K4). */
  static final String CONTROLLER_NAME = "kubevirt_eps_controller";

  static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
  static final String MANAGED_BY = "kubevirt-eps-controller";
  static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  static final String HEADLESS_LABEL = "service.kubernetes.io/headless";

  /**
   * The infrastructure cluster's kube-controller-manager: the slices its EndpointSlice controller
   * writes for a Service's selector, those its mirroring controller copies from the Endpoints of a
   * Service without one, and the Endpoints its Endpoints controller writes for a selector.
   */
  static final String SELECTOR_SLICES_MANAGER = "endpointslice-controller.k8s.io";

  static final String MIRRORED_SLICES_MANAGER = "endpointslicemirroring-controller.k8s.io";
  static final String ENDPOINTS_MANAGED_BY_LABEL = "endpoints.kubernetes.io/managed-by";
  static final String SELECTOR_ENDPOINTS_MANAGER = "endpoint-controller";

  /** K75. */
  static final int MAX_ENDPOINTS_PER_SLICE = 100;

  /**
   * How long a write of this controller waits to be shown by its informer (normally milliseconds),
   * and how long a conflict on a slice it wrote counts as its own.
   */
  static final Duration WRITE_PATIENCE = Duration.ofSeconds(30);

  /**
   * When a Service whose cache is behind this controller's writes, or whose write met a conflict,
   * is looked at again at the latest; the informer's event for the newer version queues it sooner.
   */
  static final Duration STALE_CACHE_RETRY = Duration.ofSeconds(1);

  private static final String IPV4 = "IPv4";
  private static final String IPV6 = "IPv6";

  private final KubernetesClient infra;
  private final KubernetesClient tenant;
  private final String namespace;
  private final String clusterLabel;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;
  private final SharedIndexInformer<GenericKubernetesResource> vmis;
  private final SharedIndexInformer<EndpointSlice> tenantSlices;
  private final WorkQueue<String> queue;
  private final QueueWorkers<String> workers;

  private final WrittenEndpointSlices written;

  /** Tenant node name to the name of its VMI, as its providerID said (see {@link #vmiOf}). */
  private final Map<String, String> vmiOfNode = new ConcurrentHashMap<>();

  /**
   * Registers the informers and starts them; the worker starts once every cache has synced.
   *
   * @param clusterLabel the cluster-name label's value on this cluster's infrastructure Services
   *     (K42: {@code --cluster-name}, unless {@code infraLabels} sets it)
   * @param metrics where its work queue's metrics go (the manager's {@code /metrics})
   */
  KubeVirtEndpointSlices(
      KubernetesClient infra,
      KubernetesClient tenant,
      String namespace,
      String clusterLabel,
      MeterRegistry metrics) {
    this(
        infra,
        tenant,
        namespace,
        clusterLabel,
        metrics,
        new WrittenEndpointSlices(WRITE_PATIENCE, System::nanoTime));
  }

  /** As above, with the memory of its writes given: tests put a lost write there. */
  KubeVirtEndpointSlices(
      KubernetesClient infra,
      KubernetesClient tenant,
      String namespace,
      String clusterLabel,
      MeterRegistry metrics,
      WrittenEndpointSlices written) {
    this.written = written;
    this.infra = infra;
    this.tenant = tenant;
    this.namespace = namespace;
    this.clusterLabel = clusterLabel;
    this.queue = new WorkQueue<>("kubevirt-eps", RateLimiters.controllerDefault(), metrics);
    this.workers = new QueueWorkers<>(CONTROLLER_NAME, queue, this::sync, 1);
    // K71 a: the infrastructure Services of type LoadBalancer.
    this.services =
        infra
            .services()
            .inNamespace(namespace)
            .runnableInformer(0)
            .addEventHandler(
                handler(
                    service -> {
                      if ("LoadBalancer".equals(service.getSpec().getType())) {
                        queue.add(service.getMetadata().getName());
                      }
                    }));
    // K71 c: a managed slice changed or deleted by hand is put right; and the slices the
    // kube-controller-manager left from a selector the Service has lost are seen (K72).
    this.slices =
        infra
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(namespace)
            .withLabelIn(
                MANAGED_BY_LABEL, MANAGED_BY, SELECTOR_SLICES_MANAGER, MIRRORED_SLICES_MANAGER)
            .runnableInformer(0)
            .addEventHandler(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(EndpointSlice slice) {
                    sliceChanged(slice, false);
                  }

                  @Override
                  public void onUpdate(EndpointSlice oldSlice, EndpointSlice newSlice) {
                    sliceChanged(oldSlice, false);
                    sliceChanged(newSlice, false);
                  }

                  @Override
                  public void onDelete(EndpointSlice slice, boolean deletedFinalStateUnknown) {
                    sliceChanged(slice, true);
                  }
                });
    this.vmis =
        infra
            .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINE_INSTANCES)
            .inNamespace(namespace)
            .runnableInformer(0)
            .addEventHandler(handler(this::vmiChanged));
    // K71 b: the tenant Service's endpoints moved.
    this.tenantSlices =
        tenant
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .runnableInformer(0)
            .addEventHandler(handler(this::enqueueServicesOf));
  }

  /**
   * Starts the informers, and the worker once their caches are filled. An informer that fails (RBAC
   * not granted yet, an API server that is down) tries again with backoff, as upstream's reflector
   * does, and says why.
   */
  void start() {
    startInformers()
        .whenComplete(
            (ignored, failure) -> {
              if (failure != null) {
                log.error("{}: informers did not start: {}", CONTROLLER_NAME, failure.toString());
                return;
              }
              workers.start();
              log.info(
                  "{}: started for the selectorless load balancers of cluster {} in {}",
                  CONTROLLER_NAME,
                  clusterLabel,
                  namespace);
            });
  }

  /**
   * Starts the informers alone; done once their caches are filled. Visible for tests that drive
   * {@link #sync} themselves.
   */
  CompletableFuture<Void> startInformers() {
    retrying(services, "infrastructure Services");
    retrying(slices, "infrastructure EndpointSlices");
    retrying(vmis, "VMIs");
    retrying(tenantSlices, "tenant EndpointSlices");
    return CompletableFuture.allOf(
        services.start().toCompletableFuture(),
        slices.start().toCompletableFuture(),
        vmis.start().toCompletableFuture(),
        tenantSlices.start().toCompletableFuture());
  }

  private static void retrying(SharedIndexInformer<?> informer, String what) {
    informer.exceptionHandler(
        (started, failure) -> {
          log.warn(
              "{}: cannot list or watch {}, retrying: {}",
              CONTROLLER_NAME,
              what,
              KubernetesErrors.reason(failure));
          return true;
        });
  }

  private static <T extends HasMetadata> ResourceEventHandler<T> handler(Consumer<T> changed) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        changed.accept(object);
      }

      @Override
      public void onUpdate(T oldObject, T newObject) {
        changed.accept(oldObject);
        changed.accept(newObject);
      }

      @Override
      public void onDelete(T object, boolean deletedFinalStateUnknown) {
        changed.accept(object);
      }
    };
  }

  /**
   * K71 c: a managed slice changed or went, so its Service is put right; and K72: a slice of the
   * kube-controller-manager for a Service that has lost its selector is seen. A write of this
   * controller is shown.
   */
  private void sliceChanged(EndpointSlice slice, boolean gone) {
    written.observed(slice, gone);
    String service = label(slice, SERVICE_NAME_LABEL);
    if (!service.isEmpty()
        && (MANAGED_BY.equals(label(slice, MANAGED_BY_LABEL)) || selectorless(service))) {
      queue.add(service);
    }
  }

  private void enqueueServicesOf(EndpointSlice tenantSlice) {
    String tenantService = label(tenantSlice, SERVICE_NAME_LABEL);
    if (tenantService.isEmpty()) {
      return;
    }
    for (Service service : services.getStore().list()) {
      if (ours(service)
          && tenantService.equals(label(service, KubeVirtApi.TENANT_SERVICE_NAME_LABEL))
          && tenantSlice
              .getMetadata()
              .getNamespace()
              .equals(label(service, KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL))) {
        queue.add(service.getMetadata().getName());
      }
    }
  }

  /** Whether the cached infrastructure Service {@code name} is one of ours without a selector. */
  private boolean selectorless(String name) {
    Service service = services.getStore().getByKey(namespace + "/" + name);
    return service != null && ours(service) && !hasSelector(service);
  }

  private void vmiChanged(GenericKubernetesResource vmi) {
    if (vmis.getStore().get(vmi) == null) {
      // Gone: a node that led to it is read again, and a deleted node's name is forgotten.
      String gone = vmi.getMetadata().getName();
      vmiOfNode.values().removeIf(gone::equals);
    }
    enqueueServicesWithEndpoints();
  }

  private void enqueueServicesWithEndpoints() {
    for (Service service : services.getStore().list()) {
      if (ours(service) && !hasSelector(service)) {
        queue.add(service.getMetadata().getName());
      }
    }
  }

  /** K72: the three labels of K42, the cluster's name among them. */
  private boolean ours(Service service) {
    return !label(service, KubeVirtApi.TENANT_SERVICE_NAME_LABEL).isEmpty()
        && !label(service, KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL).isEmpty()
        && clusterLabel.equals(label(service, KubeVirtApi.CLUSTER_NAME_LABEL));
  }

  /**
   * One pass over one infrastructure Service (K72–K76). A Service whose cached slices miss a write
   * of this controller waits for its informer, and a write that meets a conflict (the cache was
   * behind the server) ends the pass; either is looked at again soon, quietly. Slices pending
   * deletion (a finalizer keeps them) are not the Service's any more.
   */
  void sync(String name) throws Exception {
    List<EndpointSlice> cached = slicesOf(name, MANAGED_BY);
    if (written.stale(name, cached) && stillStale(name, cached)) {
      log.debug(
          "{}: Service {}/{}: the cache does not show this controller's last writes yet; waiting",
          CONTROLLER_NAME,
          namespace,
          name);
      queue.addAfter(name, STALE_CACHE_RETRY);
      return;
    }
    // A slice deleted and kept by a finalizer is gone for the pass, as upstream drops it
    // (dropEndpointSlicesPendingDeletion): an endpoint put there would go with it, and deleting it
    // again would wait for it again.
    List<EndpointSlice> existing =
        cached.stream().filter(s -> !WrittenEndpointSlices.pendingDeletion(s)).toList();
    try {
      reconcile(name, existing);
    } catch (SliceConflict e) {
      queue.addAfter(name, STALE_CACHE_RETRY);
    }
  }

  /**
   * Whether the cache still misses a write of this controller once the API server is asked about
   * the slices it created or updated that the cache has not held for {@link #STALE_CACHE_RETRY} (an
   * informer shows a write within milliseconds). A slice deleted before the informer's watch
   * delivered its create (a relist past both) is never shown, nor is its deletion, so the Service
   * waited the whole {@link #WRITE_PATIENCE} before it was written again. One LIST of the Service's
   * slices, which upstream makes at every pass; a write whose slice the API server no longer has is
   * forgotten, and one it still has is waited for, so no second slice is created.
   */
  private boolean stillStale(String name, List<EndpointSlice> cached) {
    Set<String> unseen = written.unseenSince(name, cached, STALE_CACHE_RETRY);
    if (unseen.isEmpty()) {
      return true;
    }
    for (EndpointSlice slice :
        infra
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(namespace)
            .withLabel(SERVICE_NAME_LABEL, name)
            .withLabel(MANAGED_BY_LABEL, MANAGED_BY)
            .list()
            .getItems()) {
      unseen.remove(slice.getMetadata().getUid());
    }
    if (unseen.isEmpty()) {
      return true;
    }
    log.debug(
        "{}: Service {}/{}: {} of this controller's slices its informer never showed are gone;"
            + " not waiting for them",
        CONTROLLER_NAME,
        namespace,
        name,
        unseen.size());
    written.forget(unseen);
    return written.stale(name, cached);
  }

  private void reconcile(String name, List<EndpointSlice> existing) throws Exception {
    Service service = services.getStore().getByKey(namespace + "/" + name);
    if (service == null || hasSelector(service)) {
      // K72: gone, or its endpoints are the infrastructure cluster's own again.
      for (EndpointSlice slice : existing) {
        delete(slice);
      }
      return;
    }
    if (!ours(service) || !"LoadBalancer".equals(service.getSpec().getType())) {
      return;
    }
    Map<String, List<Endpoint>> wanted = desiredEndpoints(service);
    List<EndpointPort> ports = ports(service);
    Map<String, String> labels = labels(service);
    for (EndpointSlice slice : existing) {
      if (!wanted.containsKey(slice.getAddressType())) {
        delete(slice); // K73: an address type the Service no longer has
      }
    }
    List<EndpointSlice> emptied = new ArrayList<>();
    for (Map.Entry<String, List<Endpoint>> type : wanted.entrySet()) {
      List<EndpointSlice> ofType =
          existing.stream().filter(s -> type.getKey().equals(s.getAddressType())).toList();
      List<List<Endpoint>> packed =
          pack(
              ofType.stream()
                  .map(s -> Objects.requireNonNullElse(s.getEndpoints(), List.<Endpoint>of()))
                  .toList(),
              type.getValue(),
              MAX_ENDPOINTS_PER_SLICE);
      for (int i = 0; i < packed.size(); i++) {
        if (i >= ofType.size()) {
          if (service.getMetadata().getDeletionTimestamp() == null) {
            create(service, type.getKey(), packed.get(i), ports, labels); // K76: not while deleted
          }
        } else if (packed.get(i).isEmpty()) {
          emptied.add(ofType.get(i));
        } else {
          update(ofType.get(i), packed.get(i), ports, labels);
        }
      }
    }
    for (EndpointSlice slice : emptied) {
      delete(slice); // K75: a slice left empty is deleted, once the others are written
    }
    // Last, so that a right missing for it (Endpoints) does not keep the slices above unwritten.
    removeEndpointsOfTheLostSelector(name);
  }

  /**
   * K75: the endpoints of each existing slice of one address type after this pass, then those of
   * the slices to create. An endpoint still wanted stays in the slice it is in, updated there, so
   * that none is in no slice between two writes (refilling the slices in order moved endpoints
   * between slices whenever one was inserted in the order); the new ones fill the slices with room,
   * in order (a slice left empty among them), then new slices of {@code max}. A slice is never
   * re-sorted or compacted. An endpoint is known by its address; a second one with the same address
   * is dropped.
   */
  static List<List<Endpoint>> pack(List<List<Endpoint>> existing, List<Endpoint> wanted, int max) {
    Map<String, Endpoint> unplaced = new LinkedHashMap<>();
    for (Endpoint endpoint : wanted) {
      unplaced.putIfAbsent(endpoint.getAddresses().get(0), endpoint);
    }
    List<List<Endpoint>> packed = new ArrayList<>();
    for (List<Endpoint> slice : existing) {
      List<Endpoint> kept = new ArrayList<>();
      for (Endpoint endpoint : slice) {
        if (kept.size() < max
            && endpoint.getAddresses() != null
            && !endpoint.getAddresses().isEmpty()) {
          Endpoint current = unplaced.remove(endpoint.getAddresses().get(0));
          if (current != null) {
            kept.add(current);
          }
        }
      }
      packed.add(kept);
    }
    Iterator<Endpoint> rest = unplaced.values().iterator();
    for (List<Endpoint> slice : packed) {
      while (slice.size() < max && rest.hasNext()) {
        slice.add(rest.next());
      }
    }
    while (rest.hasNext()) {
      List<Endpoint> slice = new ArrayList<>();
      while (slice.size() < max && rest.hasNext()) {
        slice.add(rest.next());
      }
      packed.add(slice);
    }
    return packed;
  }

  /**
   * The cached slices of the Service {@code service} that {@code manager} manages, by name. Visible
   * for tests that wait for the cache.
   */
  List<EndpointSlice> slicesOf(String service, String manager) {
    List<EndpointSlice> found = new ArrayList<>();
    for (EndpointSlice slice : slices.getStore().list()) {
      if (service.equals(label(slice, SERVICE_NAME_LABEL))
          && manager.equals(label(slice, MANAGED_BY_LABEL))) {
        found.add(slice);
      }
    }
    found.sort((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName()));
    return found;
  }

  /**
   * K72: a Service of ours without a selector gets its endpoints from this controller only. When it
   * had a selector before (ccm4j follows a tenant Service switched to {@code externalTrafficPolicy:
   * Local}, K47, where upstream keeps the selector of its creation), the infrastructure cluster's
   * kube-controller-manager leaves what it wrote for that selector: its EndpointSlice controller
   * and Endpoints controller write nothing for a Service without a selector, and delete nothing
   * either, and its mirroring controller copies those Endpoints into slices. The load balancer
   * would keep sending traffic to every worker VM. Its slices go, and its Endpoints, whose mirrored
   * slices the mirroring controller then deletes; nobody else's.
   */
  private void removeEndpointsOfTheLostSelector(String name) {
    for (EndpointSlice slice : slicesOf(name, SELECTOR_SLICES_MANAGER)) {
      log.info(
          "{}: Service {}/{} has no selector: deleting EndpointSlice {} its selector left",
          CONTROLLER_NAME,
          namespace,
          name,
          slice.getMetadata().getName());
      delete(slice);
    }
    if (slicesOf(name, MIRRORED_SLICES_MANAGER).isEmpty()) {
      return;
    }
    Endpoints endpoints = infra.endpoints().inNamespace(namespace).withName(name).get();
    if (endpoints != null
        && SELECTOR_ENDPOINTS_MANAGER.equals(label(endpoints, ENDPOINTS_MANAGED_BY_LABEL))) {
      log.info(
          "{}: Service {}/{} has no selector: deleting the Endpoints its selector left",
          CONTROLLER_NAME,
          namespace,
          name);
      infra.endpoints().inNamespace(namespace).resource(endpoints).delete();
    }
  }

  /**
   * K73, K74: per address type the Service serves, one endpoint per VMI that runs a node of the
   * tenant Service's endpoints, in the order of the nodes' names, its conditions from the VMI's
   * phase and those tenant endpoints' conditions (K121, {@link #conditions}).
   */
  private Map<String, List<Endpoint>> desiredEndpoints(Service service) throws CloudException {
    Map<String, List<EndpointConditions>> onNode = new TreeMap<>();
    String tenantNamespace = label(service, KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL);
    String tenantName = label(service, KubeVirtApi.TENANT_SERVICE_NAME_LABEL);
    for (EndpointSlice slice : tenantSlices.getStore().list()) {
      if (!tenantNamespace.equals(slice.getMetadata().getNamespace())
          || !tenantName.equals(label(slice, SERVICE_NAME_LABEL))
          || slice.getEndpoints() == null) {
        continue;
      }
      for (Endpoint endpoint : slice.getEndpoints()) {
        // K74: an endpoint without a node name (upstream panics) has no VMI to send traffic to.
        if (endpoint.getNodeName() != null && !endpoint.getNodeName().isEmpty()) {
          onNode
              .computeIfAbsent(endpoint.getNodeName(), n -> new ArrayList<>())
              .add(endpoint.getConditions());
        }
      }
    }
    // A VMI that two tenant nodes lead to (a providerID copied by hand) has one endpoint.
    Map<String, VirtualMachineInstance> vmisByName = new LinkedHashMap<>();
    Map<String, List<EndpointConditions>> onVmi = new HashMap<>();
    for (Map.Entry<String, List<EndpointConditions>> node : onNode.entrySet()) {
      GenericKubernetesResource resource = vmiOf(node.getKey());
      if (resource == null) {
        log.info(
            "{}: Service {}/{}: no VMI in {} for tenant node {}; skipped",
            CONTROLLER_NAME,
            namespace,
            service.getMetadata().getName(),
            namespace,
            node.getKey());
        continue;
      }
      VirtualMachineInstance vmi = VirtualMachineInstance.of(resource);
      vmisByName.putIfAbsent(vmi.name(), vmi);
      onVmi.computeIfAbsent(vmi.name(), n -> new ArrayList<>()).addAll(node.getValue());
    }
    Map<String, List<Endpoint>> wanted = new TreeMap<>();
    for (String type : addressTypes(service)) {
      wanted.put(type, new ArrayList<>());
    }
    for (VirtualMachineInstance vmi : vmisByName.values()) {
      EndpointConditions conditions = conditions(vmi.phase(), onVmi.get(vmi.name()));
      for (Map.Entry<String, List<Endpoint>> type : wanted.entrySet()) {
        address(vmi, type.getKey())
            .ifPresent(ip -> type.getValue().add(endpoint(vmi, ip, conditions)));
      }
    }
    return wanted;
  }

  /**
   * K74 2: the VMI of a tenant node: the one the node's providerID names (K21), else the one named
   * as the node, upstream's only rule. ccm4j binds nodes named otherwise than their VMI (an FQDN,
   * the instance-id label, K26), and its node controller sets the providerID before the node takes
   * pods. A providerID never changes once set, so each node is read once, and again only when the
   * VMI it led to is not there.
   */
  private GenericKubernetesResource vmiOf(String nodeName) throws CloudException {
    String vmiName = vmiOfNode.get(nodeName);
    if (vmiName == null) {
      Node node;
      try {
        node = tenant.nodes().withName(nodeName).get();
      } catch (KubernetesClientException e) {
        throw new CloudException(
            "reading tenant node %s: %s".formatted(nodeName, KubernetesErrors.reason(e)), e);
      }
      String providerId =
          node == null || node.getSpec() == null ? null : node.getSpec().getProviderID();
      vmiName = nodeName;
      if (providerId != null && !providerId.isEmpty()) {
        try {
          vmiName = ProviderIds.instanceId(providerId);
        } catch (CloudException e) {
          log.warn("{}: tenant node {}: {}", CONTROLLER_NAME, nodeName, e.getMessage());
        }
      }
      vmiOfNode.put(nodeName, vmiName);
    }
    GenericKubernetesResource vmi = vmis.getStore().getByKey(namespace + "/" + vmiName);
    if (vmi == null) {
      vmiOfNode.remove(nodeName);
    }
    return vmi;
  }

  /** K73: the Service's IP families, else its cluster IP's, else both. */
  static List<String> addressTypes(Service service) {
    List<String> families = service.getSpec().getIpFamilies();
    if (families != null && !families.isEmpty()) {
      return families.stream().filter(f -> f.equals(IPV4) || f.equals(IPV6)).distinct().toList();
    }
    String clusterIp = service.getSpec().getClusterIP();
    if (clusterIp != null && !clusterIp.isEmpty() && !clusterIp.equals("None")) {
      return List.of(clusterIp.contains(":") ? IPV6 : IPV4);
    }
    return List.of(IPV4, IPV6);
  }

  /**
   * The default interface's first address of the family (K74, by family rather than first) that the
   * API server takes in an EndpointSlice: a link-local, loopback, unspecified or link-local
   * multicast address (a guest agent reports {@code fe80::…}) would fail the whole slice, and every
   * other VMI's endpoint in it. An IPv4-mapped IPv6 address is IPv4, as the API server reads it.
   */
  static Optional<String> address(VirtualMachineInstance vmi, String type) {
    for (String ip : vmi.defaultInterfaceIps()) {
      Optional<InetAddress> parsed = IpAddresses.tryParse(ip);
      if (parsed.isEmpty() || (parsed.get() instanceof Inet6Address) != type.equals(IPV6)) {
        continue;
      }
      InetAddress address = parsed.get();
      if (!address.isLinkLocalAddress()
          && !address.isLoopbackAddress()
          && !address.isAnyLocalAddress()
          && !address.isMCLinkLocal()) {
        return Optional.of(ip);
      }
    }
    return Optional.empty();
  }

  /**
   * K74 with K121: the conditions of a VMI's endpoint. Upstream's are the VMI's phase alone, so a
   * guest whose tenant pods are not ready (a reboot) kept its traffic. A VMI that is not {@code
   * Running} is neither ready nor serving, and terminating once {@code Failed} or {@code Succeeded}
   * (upstream's rule). A Running VMI's endpoint says what the tenant node's kube-proxy does with
   * the Service's endpoints on it under {@code externalTrafficPolicy: Local}, reading each as the
   * EndpointSlice API says (ready and serving unset are true, terminating unset is false):
   *
   * <ul>
   *   <li>ready: one of them is ready (kube-proxy sends to the ready ones);
   *   <li>serving: one is ready, or one is serving and terminating (kube-proxy falls back to those
   *       when none is ready);
   *   <li>terminating: none is ready and one is terminating.
   * </ul>
   *
   * <p>The infrastructure cluster's kube-proxy then does the same one level up: it sends to ready
   * endpoints, falls back to serving and terminating ones, and its health check node port counts
   * only the ready local ones, so the load balancer drains the infrastructure node of a VM whose
   * pods are not ready and that hosts no other ready VM of the Service.
   */
  static EndpointConditions conditions(String phase, List<EndpointConditions> tenant) {
    if (!KubeVirtApi.PHASE_RUNNING.equals(phase)) {
      boolean finished =
          KubeVirtApi.PHASE_FAILED.equals(phase) || KubeVirtApi.PHASE_SUCCEEDED.equals(phase);
      return new EndpointConditions(false, false, finished);
    }
    boolean ready = false;
    boolean servingTerminating = false;
    boolean terminating = false;
    for (EndpointConditions conditions : tenant) {
      boolean isReady = conditions == null || !Boolean.FALSE.equals(conditions.getReady());
      boolean isServing = conditions == null || !Boolean.FALSE.equals(conditions.getServing());
      boolean isTerminating =
          conditions != null && Boolean.TRUE.equals(conditions.getTerminating());
      ready |= isReady;
      servingTerminating |= isServing && isTerminating;
      terminating |= isTerminating;
    }
    return new EndpointConditions(ready, ready || servingTerminating, !ready && terminating);
  }

  private static Endpoint endpoint(
      VirtualMachineInstance vmi, String ip, EndpointConditions conditions) {
    EndpointBuilder builder = new EndpointBuilder().withAddresses(ip).withConditions(conditions);
    if (!vmi.nodeName().isEmpty()) {
      builder.withNodeName(vmi.nodeName());
    }
    return builder.build();
  }

  /** K75: one port per infrastructure Service port, to its target port (the tenant node port). */
  private static List<EndpointPort> ports(Service service) {
    List<EndpointPort> ports = new ArrayList<>();
    for (ServicePort port : service.getSpec().getPorts()) {
      // The name and protocol as the API server stores them (a missing name is ""), so that an
      // unchanged slice compares equal and is not written again.
      ports.add(
          new EndpointPortBuilder()
              .withName(Objects.requireNonNullElse(port.getName(), ""))
              .withProtocol(Objects.requireNonNullElse(port.getProtocol(), "TCP"))
              .withPort(
                  port.getTargetPort() != null && port.getTargetPort().getIntVal() != null
                      ? port.getTargetPort().getIntVal()
                      : port.getPort())
              .build());
    }
    return ports;
  }

  /** K76: the Service's labels, its name, this controller, and headless when it is. */
  private static Map<String, String> labels(Service service) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (service.getMetadata().getLabels() != null) {
      labels.putAll(service.getMetadata().getLabels());
    }
    labels.put(SERVICE_NAME_LABEL, service.getMetadata().getName());
    labels.put(MANAGED_BY_LABEL, MANAGED_BY);
    String clusterIp = service.getSpec().getClusterIP();
    if (clusterIp == null || clusterIp.isEmpty() || clusterIp.equals("None")) {
      labels.put(HEADLESS_LABEL, "");
    }
    return labels;
  }

  private void create(
      Service service,
      String addressType,
      List<Endpoint> endpoints,
      List<EndpointPort> ports,
      Map<String, String> labels) {
    EndpointSlice slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withGenerateName(service.getMetadata().getName())
            .withNamespace(namespace)
            .withLabels(labels)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("Service")
                    .withName(service.getMetadata().getName())
                    .withUid(service.getMetadata().getUid())
                    .withController(true)
                    .build())
            .endMetadata()
            .withAddressType(addressType)
            .withEndpoints(endpoints)
            .withPorts(ports)
            .build();
    try {
      written.written(
          service.getMetadata().getName(),
          infra.discovery().v1().endpointSlices().inNamespace(namespace).resource(slice).create());
    } catch (KubernetesClientException e) {
      if (namespaceTerminating(e)) {
        return; // K76
      }
      throw e;
    }
  }

  /** K75: in place, and only when something differs. */
  private void update(
      EndpointSlice slice,
      List<Endpoint> endpoints,
      List<EndpointPort> ports,
      Map<String, String> labels) {
    // K76: ours over the slice's own, as upstream merges them: a label someone else puts there (an
    // admission webhook) stays, rather than being taken off and put back at every write.
    Map<String, String> merged = new LinkedHashMap<>();
    if (slice.getMetadata().getLabels() != null) {
      merged.putAll(slice.getMetadata().getLabels());
    }
    if (!labels.containsKey(HEADLESS_LABEL)) {
      merged.remove(HEADLESS_LABEL);
    }
    merged.putAll(labels);
    if (Objects.equals(slice.getEndpoints(), endpoints)
        && Objects.equals(slice.getPorts(), ports)
        && Objects.equals(slice.getMetadata().getLabels(), merged)) {
      return;
    }
    EndpointSlice updated =
        new EndpointSliceBuilder(slice)
            .editMetadata()
            .withLabels(merged)
            .endMetadata()
            .withEndpoints(endpoints)
            .withPorts(ports)
            .build();
    try {
      written.written(
          label(slice, SERVICE_NAME_LABEL),
          infra
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace(namespace)
              .resource(updated)
              .update());
    } catch (KubernetesClientException e) {
      throw conflict(slice, e);
    }
  }

  private void delete(EndpointSlice slice) {
    try {
      infra.discovery().v1().endpointSlices().inNamespace(namespace).resource(slice).delete();
    } catch (KubernetesClientException e) {
      throw conflict(slice, e);
    }
    written.deleted(label(slice, SERVICE_NAME_LABEL), slice);
  }

  /**
   * A conflict is a write from a version the server has passed: the pass ends, and the Service is
   * looked at again once the cache shows the newer version. After this controller's own write it is
   * expected (DEBUG); someone else changed the slice otherwise (INFO). Any other failure is thrown
   * as it is.
   */
  private RuntimeException conflict(EndpointSlice slice, KubernetesClientException e) {
    if (!Conflicts.isConflict(e)) {
      return e;
    }
    String message =
        "{}: EndpointSlice {}/{} was changed after its cached version, by {}; will look again";
    String name = slice.getMetadata().getName();
    if (written.recentlyWritten(slice.getMetadata().getUid())) {
      log.debug(message, CONTROLLER_NAME, namespace, name, "this controller");
    } else {
      log.info(message, CONTROLLER_NAME, namespace, name, "someone else");
    }
    return new SliceConflict(e);
  }

  /** A write met a conflict; {@link #sync} looks at the Service again. */
  private static final class SliceConflict extends RuntimeException {
    SliceConflict(KubernetesClientException conflict) {
      super(conflict.getMessage(), conflict);
    }
  }

  private static boolean namespaceTerminating(KubernetesClientException e) {
    if (e.getStatus() == null || e.getStatus().getDetails() == null) {
      return false;
    }
    List<StatusCause> causes = e.getStatus().getDetails().getCauses();
    return causes != null
        && causes.stream().anyMatch(c -> "NamespaceTerminating".equals(c.getReason()));
  }

  private static boolean hasSelector(Service service) {
    return service.getSpec().getSelector() != null && !service.getSpec().getSelector().isEmpty();
  }

  private static String label(HasMetadata object, String key) {
    Map<String, String> labels = object.getMetadata().getLabels();
    return labels == null ? "" : Objects.requireNonNullElse(labels.get(key), "");
  }

  @Override
  public void close() throws InterruptedException {
    workers.close();
    services.close();
    slices.close();
    vmis.close();
    tenantSlices.close();
  }
}
