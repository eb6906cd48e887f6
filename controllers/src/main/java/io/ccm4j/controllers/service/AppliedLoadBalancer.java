package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a load balancer was last ensured with, kept in the Service's annotation {@value
 * WellKnownAnnotations#LOAD_BALANCER_APPLIED} as {@code spec=<digest>,nodes=<digest>}: a digest of
 * everything of the Service an ensure may depend on, of the cluster name and of the provider's
 * fingerprint, and one of the backend set ({name → provider ID}, S15). A new leader that finds both
 * digests equal to what it would ensure now, and the cloud reporting the load balancer with the
 * ingress in the Service's status, has nothing to ensure (ccm4j's answer to the start-up storm,
 * §8.8).
 *
 * <p>A node-sync pass (S15) that moves the backends away from the recorded set first records {@code
 * nodes=}{@value #NODES_UNRECORDED}: a new leader then updates the backends instead of trusting a
 * digest the load balancer no longer matches (the set may have changed back to it since).
 */
record AppliedLoadBalancer(String specDigest, String nodesDigest) {

  /** The nodes digest once a node sync changed the backends after the last ensure. */
  static final String NODES_UNRECORDED = "unrecorded";

  private static final Pattern FORMAT =
      Pattern.compile("spec=([0-9a-f]{16}),nodes=([0-9a-f]{16}|" + NODES_UNRECORDED + ")");
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  /**
   * What the controller would record after ensuring {@code service} with {@code nodes} for the
   * cluster {@code clusterName} by a provider of the given fingerprint.
   */
  static AppliedLoadBalancer of(
      Service service, List<Node> nodes, String clusterName, String providerFingerprint) {
    return new AppliedLoadBalancer(
        specDigest(service, clusterName, providerFingerprint), nodesDigest(nodes));
  }

  /** The recorded value; empty when absent or not in ccm4j's format (then it is ignored). */
  static Optional<AppliedLoadBalancer> recorded(Service service) {
    Map<String, String> annotations = service.getMetadata().getAnnotations();
    String value =
        annotations == null ? null : annotations.get(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
    if (value == null) {
      return Optional.empty();
    }
    Matcher matcher = FORMAT.matcher(value);
    return matcher.matches()
        ? Optional.of(new AppliedLoadBalancer(matcher.group(1), matcher.group(2)))
        : Optional.empty();
  }

  String annotationValue() {
    return "spec=" + specDigest + ",nodes=" + nodesDigest;
  }

  boolean nodesRecorded() {
    return !NODES_UNRECORDED.equals(nodesDigest);
  }

  AppliedLoadBalancer withNodesUnrecorded() {
    return new AppliedLoadBalancer(specDigest, NODES_UNRECORDED);
  }

  /**
   * Everything of the Service an ensure may depend on, not only the S6 fields: the whole spec, the
   * labels and every annotation but ccm4j's own record, the UID (which ties the digest to this very
   * Service), the cluster name every cloud call is given ({@code --cluster-name}: providers name
   * and tag load balancers with it) and the provider's {@link
   * io.ccm4j.cloudprovider.LoadBalancer#fingerprint()}. A field S6 ignores, a corrected cluster
   * name, an upgraded provider or a changed cloud-config makes a new leader ensure again.
   */
  static String specDigest(Service service, String clusterName, String providerFingerprint) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("uid", service.getMetadata().getUid());
    fields.put("cluster", clusterName);
    fields.put("provider", providerFingerprint);
    fields.put("spec", service.getSpec() == null ? Map.of() : service.getSpec());
    fields.put("labels", new TreeMap<>(orEmpty(service.getMetadata().getLabels())));
    Map<String, String> annotations =
        new TreeMap<>(orEmpty(service.getMetadata().getAnnotations()));
    annotations.remove(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
    fields.put("annotations", annotations);
    return digest(JSON.asJson(fields));
  }

  /**
   * Which record a node sync must first mark {@code nodes=}{@value #NODES_UNRECORDED}; empty when
   * none. The record this instance wrote last counts before the one in the informer's cache, which
   * may not hold that write yet: decided from the cache alone, a sync right after an ensure found
   * no record, changed the backends unmarked, and left the record of the ensure vouching for them.
   */
  static Optional<AppliedLoadBalancer> toMarkBeforeBackendChange(
      Optional<AppliedLoadBalancer> writtenHere, Optional<AppliedLoadBalancer> cached) {
    Optional<AppliedLoadBalancer> current = writtenHere.isPresent() ? writtenHere : cached;
    return current.filter(AppliedLoadBalancer::nodesRecorded);
  }

  static String nodesDigest(List<Node> nodes) {
    return digest(JSON.asJson(LoadBalancerNodes.backends(nodes)));
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }

  private static String digest(String text) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
