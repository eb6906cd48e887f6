package io.ccm4j.runtime.client.protobuf;

import io.fabric8.kubernetes.api.model.ConfigMapNodeConfigSource;
import io.fabric8.kubernetes.api.model.DaemonEndpoint;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConfigSource;
import io.fabric8.kubernetes.api.model.NodeDaemonEndpoints;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.V1;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A protobuf Node as the fabric8 {@link Node} the controllers read, with only the fields the
 * manager (and a cloud provider handed the Node) may read; the rest is dropped, as upstream's
 * informer transforms drop managedFields, and saves building and caching it for every Node.
 *
 * <p>Kept: metadata name, generateName, namespace, uid, resourceVersion, generation,
 * creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, labels, annotations,
 * ownerReferences, finalizers; the whole spec (podCIDR, podCIDRs, providerID, unschedulable,
 * taints, configSource, externalID), so that the node controller's full update (N9) of a cached
 * Node keeps every spec field (the API server keeps the stored status on such an update); status
 * capacity, allocatable, phase, conditions, addresses, daemonEndpoints, nodeInfo (its fields up to
 * architecture). Dropped: metadata managedFields (as the JSON path drops them) and selfLink; status
 * images, volumesInUse, volumesAttached, config, runtimeHandlers, features, declaredFeatures, and
 * nodeInfo's newer fields (swap, ...).
 *
 * <p>Empty values read as JSON reads them: the API server's protobuf always carries a Go string,
 * bool, number or time, where its JSON omits the empty ones ({@code omitempty}); those come out
 * {@code null}, as fabric8 reads the omitted field. Fields JSON always carries keep their empty
 * value.
 *
 * <p>The strings that recur from Node to Node (keys, the zone, condition reasons, versions, ...)
 * and the quantities of capacity and allocatable come out as one shared instance each ({@link
 * Pool}), and so do the times of recent seconds; the hostname label and address hold the Node's own
 * name, and podCIDRs the podCIDR's string. Every object of the projection shares one empty,
 * unmodifiable map of additional properties (fabric8 gives each its own: some twenty empty maps a
 * Node, an eighth of the cache's heap), an empty list is the shared {@code List.of()} (fabric8's
 * are lists of their own, the dropped fields' too), and Nodes with the same capacity or allocatable
 * share one unmodifiable map of it. A cached Node is read, never changed; a copy made with
 * fabric8's builders gets maps and lists of its own.
 */
public final class NodeProjection {

  /** Go's zero time, which protobuf carries where JSON writes {@code null}. */
  private static final long GO_ZERO_TIME_SECONDS = -62135596800L;

  /** Enough for every recurring string of a large cluster's Nodes, about 1 MiB when full. */
  private static final Pool<String> STRINGS = new Pool<>(16_384);

  /** The quantities by their text: a cluster's machine types have few distinct ones. */
  private static final Pool<Quantity> QUANTITIES = new Pool<>(4_096);

  /** The capacity and allocatable maps by their content. */
  private static final Pool<Map<String, Quantity>> RESOURCES = new Pool<>(1_024);

  /** The additional properties of every projected object: none, unmodifiable. */
  private static final Map<String, Object> NONE = Map.of();

  /**
   * The text of the last second seen in each slot (a second's slot: its low ten bits), shared by
   * every Node: kubelets stamp their heartbeats within the same few seconds, and a Node's
   * conditions share one heartbeat and few transition times. Formatting every time anew was a fifth
   * of the projection's CPU. Slots are replaced without a lock: a record's fields are final, and a
   * race only formats a time once more.
   */
  private static final Time[] TIMES = new Time[1024];

  private NodeProjection() {}

  public static Node node(V1.Node node) {
    Node result = new Node();
    result.setAdditionalProperties(NONE);
    result.setApiVersion("v1");
    result.setKind("Node");
    result.setMetadata(metadata(node.getMetadata()));
    result.setSpec(spec(node.getSpec()));
    result.setStatus(status(node.getStatus(), node.getMetadata().getName()));
    return result;
  }

  static ObjectMeta metadata(Meta.ObjectMeta meta) {
    ObjectMeta result = new ObjectMeta();
    result.setAdditionalProperties(NONE);
    result.setName(omitEmpty(meta.getName()));
    result.setGenerateName(omitEmpty(meta.getGenerateName()));
    result.setNamespace(omitEmpty(meta.getNamespace()));
    result.setUid(omitEmpty(meta.getUid()));
    result.setResourceVersion(omitEmpty(meta.getResourceVersion()));
    if (meta.getGeneration() != 0) {
      result.setGeneration(meta.getGeneration());
    }
    result.setCreationTimestamp(time(meta.hasCreationTimestamp(), meta.getCreationTimestamp()));
    result.setDeletionTimestamp(time(meta.hasDeletionTimestamp(), meta.getDeletionTimestamp()));
    if (meta.hasDeletionGracePeriodSeconds()) {
      result.setDeletionGracePeriodSeconds(meta.getDeletionGracePeriodSeconds());
    }
    // The hostname label is the node's name: unique, not pooled.
    result.setLabels(pooled(meta.getLabelsMap(), meta.getName()));
    result.setAnnotations(pooled(meta.getAnnotationsMap(), meta.getName()));
    List<OwnerReference> owners = new ArrayList<>(meta.getOwnerReferencesCount());
    for (Meta.OwnerReference owner : meta.getOwnerReferencesList()) {
      OwnerReference reference = new OwnerReference();
      reference.setAdditionalProperties(NONE);
      reference.setApiVersion(pool(owner.getApiVersion()));
      reference.setKind(pool(owner.getKind()));
      reference.setName(owner.getName());
      reference.setUid(owner.getUid());
      reference.setController(owner.hasController() ? owner.getController() : null);
      reference.setBlockOwnerDeletion(
          owner.hasBlockOwnerDeletion() ? owner.getBlockOwnerDeletion() : null);
      owners.add(reference);
    }
    result.setOwnerReferences(orNone(owners));
    List<String> finalizers = new ArrayList<>(meta.getFinalizersCount());
    meta.getFinalizersList().forEach(finalizer -> finalizers.add(pool(finalizer)));
    result.setFinalizers(orNone(finalizers));
    result.setManagedFields(List.of());
    return result;
  }

  private static NodeSpec spec(V1.NodeSpec spec) {
    NodeSpec result = new NodeSpec();
    result.setAdditionalProperties(NONE);
    result.setPodCIDR(omitEmpty(spec.getPodCIDR()));
    // podCIDRs[0] is podCIDR: one string for both.
    List<String> podCidrs = new ArrayList<>(spec.getPodCIDRsCount());
    spec.getPodCIDRsList().forEach(cidr -> podCidrs.add(ownName(cidr, result.getPodCIDR())));
    result.setPodCIDRs(orNone(podCidrs));
    result.setProviderID(omitEmpty(spec.getProviderID()));
    result.setUnschedulable(spec.getUnschedulable() ? Boolean.TRUE : null);
    List<Taint> taints = new ArrayList<>(spec.getTaintsCount());
    for (V1.Taint taint : spec.getTaintsList()) {
      Taint result1 = new Taint();
      result1.setAdditionalProperties(NONE);
      result1.setKey(pool(taint.getKey()));
      result1.setValue(omitEmpty(pool(taint.getValue())));
      result1.setEffect(pool(taint.getEffect()));
      result1.setTimeAdded(time(taint.hasTimeAdded(), taint.getTimeAdded()));
      taints.add(result1);
    }
    result.setTaints(orNone(taints));
    result.setExternalID(omitEmpty(spec.getExternalID()));
    if (spec.hasConfigSource() && spec.getConfigSource().hasConfigMap()) {
      V1.ConfigMapNodeConfigSource configMap = spec.getConfigSource().getConfigMap();
      ConfigMapNodeConfigSource source =
          new ConfigMapNodeConfigSource(
              configMap.getKubeletConfigKey(),
              configMap.getName(),
              configMap.getNamespace(),
              omitEmpty(configMap.getResourceVersion()),
              omitEmpty(configMap.getUid()));
      source.setAdditionalProperties(NONE);
      NodeConfigSource configSource = new NodeConfigSource(source);
      configSource.setAdditionalProperties(NONE);
      result.setConfigSource(configSource);
    }
    return result;
  }

  private static NodeStatus status(V1.NodeStatus status, String name) {
    NodeStatus result = new NodeStatus();
    result.setAdditionalProperties(NONE);
    result.setCapacity(resources(status.getCapacityMap()));
    result.setAllocatable(resources(status.getAllocatableMap()));
    result.setImages(List.of());
    result.setVolumesInUse(List.of());
    result.setVolumesAttached(List.of());
    result.setRuntimeHandlers(List.of());
    result.setDeclaredFeatures(List.of());
    result.setPhase(omitEmpty(pool(status.getPhase())));
    List<NodeCondition> conditions = new ArrayList<>(status.getConditionsCount());
    for (V1.NodeCondition condition : status.getConditionsList()) {
      NodeCondition result1 = new NodeCondition();
      result1.setAdditionalProperties(NONE);
      result1.setType(pool(condition.getType()));
      result1.setStatus(pool(condition.getStatus()));
      result1.setLastHeartbeatTime(
          time(condition.hasLastHeartbeatTime(), condition.getLastHeartbeatTime()));
      result1.setLastTransitionTime(
          time(condition.hasLastTransitionTime(), condition.getLastTransitionTime()));
      result1.setReason(omitEmpty(pool(condition.getReason())));
      result1.setMessage(omitEmpty(pool(condition.getMessage())));
      conditions.add(result1);
    }
    result.setConditions(orNone(conditions));
    List<NodeAddress> addresses = new ArrayList<>(status.getAddressesCount());
    for (V1.NodeAddress address : status.getAddressesList()) {
      NodeAddress result1 =
          new NodeAddress(ownName(address.getAddress(), name), pool(address.getType()));
      result1.setAdditionalProperties(NONE);
      addresses.add(result1);
    }
    result.setAddresses(orNone(addresses));
    if (status.hasDaemonEndpoints()) {
      V1.NodeDaemonEndpoints endpoints = status.getDaemonEndpoints();
      DaemonEndpoint kubelet = null;
      if (endpoints.hasKubeletEndpoint()) {
        kubelet = new DaemonEndpoint(endpoints.getKubeletEndpoint().getPort());
        kubelet.setAdditionalProperties(NONE);
      }
      NodeDaemonEndpoints daemonEndpoints = new NodeDaemonEndpoints(kubelet);
      daemonEndpoints.setAdditionalProperties(NONE);
      result.setDaemonEndpoints(daemonEndpoints);
    }
    if (status.hasNodeInfo()) {
      V1.NodeSystemInfo info = status.getNodeInfo();
      NodeSystemInfo result1 = new NodeSystemInfo();
      result1.setAdditionalProperties(NONE);
      result1.setMachineID(info.getMachineID());
      result1.setSystemUUID(info.getSystemUUID());
      result1.setBootID(info.getBootID());
      result1.setKernelVersion(pool(info.getKernelVersion()));
      result1.setOsImage(pool(info.getOsImage()));
      result1.setContainerRuntimeVersion(pool(info.getContainerRuntimeVersion()));
      result1.setKubeletVersion(pool(info.getKubeletVersion()));
      result1.setKubeProxyVersion(pool(info.getKubeProxyVersion()));
      result1.setOperatingSystem(pool(info.getOperatingSystem()));
      result1.setArchitecture(pool(info.getArchitecture()));
      result.setNodeInfo(result1);
    }
    return result;
  }

  /**
   * A capacity or allocatable map, one unmodifiable instance for each distinct content: the Nodes
   * of one machine type have the same.
   */
  private static Map<String, Quantity> resources(Map<String, Resource.Quantity> quantities) {
    if (quantities.isEmpty()) {
      return Map.of();
    }
    StringBuilder text = new StringBuilder(quantities.size() * 24);
    quantities.forEach(
        (name, quantity) -> text.append(name).append('=').append(quantity.getString()).append(','));
    return RESOURCES.get(text.toString(), key -> quantities(quantities));
  }

  private static Map<String, Quantity> quantities(Map<String, Resource.Quantity> quantities) {
    Map<String, Quantity> result = new LinkedHashMap<>(quantities.size() * 2);
    quantities.forEach(
        (name, quantity) ->
            result.put(pool(name), QUANTITIES.get(quantity.getString(), NodeProjection::quantity)));
    return Collections.unmodifiableMap(result);
  }

  /** {@code list}, or the shared empty list when it is empty. */
  private static <T> List<T> orNone(List<T> list) {
    return list.isEmpty() ? List.of() : list;
  }

  private static Quantity quantity(String text) {
    Quantity parsed = new Quantity(text);
    Quantity result = new Quantity(pool(parsed.getAmount()), pool(parsed.getFormat()));
    result.setAdditionalProperties(NONE);
    return result;
  }

  /**
   * A label or annotation map, its keys pooled and its values too, but for the object's name, which
   * the value then holds.
   */
  private static Map<String, String> pooled(Map<String, String> entries, String name) {
    Map<String, String> result = new LinkedHashMap<>(Math.max(4, entries.size() * 2));
    entries.forEach((key, value) -> result.put(pool(key), value.equals(name) ? name : pool(value)));
    return result;
  }

  /** {@code name} when {@code value} is the object's name (unique to it: never pooled). */
  private static String ownName(String value, String name) {
    return value.equals(name) ? name : value;
  }

  /** The projection's shared instance of a recurring string ({@link Pool}). */
  static String pool(String value) {
    return value == null || value.isEmpty() ? value : STRINGS.get(value, text -> text);
  }

  /**
   * RFC 3339 at seconds, as metav1.Time writes JSON; {@code null} for Go's zero time. One string
   * for each recent second ({@link #TIMES}).
   */
  static String time(boolean present, Meta.Time time) {
    if (!present || time.getSeconds() == GO_ZERO_TIME_SECONDS) {
      return null;
    }
    long seconds = time.getSeconds();
    int slot = (int) (seconds & (TIMES.length - 1));
    Time known = TIMES[slot];
    if (known != null && known.seconds() == seconds) {
      return known.text();
    }
    String text = Instant.ofEpochSecond(seconds).toString();
    TIMES[slot] = new Time(seconds, text);
    return text;
  }

  private record Time(long seconds, String text) {}

  private static String omitEmpty(String value) {
    return value.isEmpty() ? null : value;
  }
}
