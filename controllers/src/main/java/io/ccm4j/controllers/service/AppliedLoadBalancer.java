package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a load balancer was last ensured with, kept in the Service's annotation {@value
 * WellKnownAnnotations#LOAD_BALANCER_APPLIED} as {@code spec=<digest>,nodes=<digest>}: a digest of
 * the fields S6 compares and one of the backend set ({name → provider ID}, S15). A new leader that
 * finds both digests equal to what it would ensure now, and the cloud reporting the load balancer
 * with the ingress in the Service's status, has nothing to ensure (ccm4j's answer to the start-up
 * storm, §8.8).
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

  /** What the controller would record after ensuring {@code service} with {@code nodes}. */
  static AppliedLoadBalancer of(Service service, List<Node> nodes) {
    return new AppliedLoadBalancer(specDigest(service), nodesDigest(nodes));
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

  /** The S6 fields, in a fixed order; the UID ties the digest to this very Service. */
  static String specDigest(Service service) {
    ServiceSpec spec = service.getSpec() == null ? new ServiceSpec() : service.getSpec();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("uid", service.getMetadata().getUid());
    fields.put("wantsLoadBalancer", LoadBalancerServices.wantsLoadBalancer(service));
    fields.put("loadBalancerSourceRanges", orEmpty(spec.getLoadBalancerSourceRanges()));
    List<Object> ports = new ArrayList<>();
    if (spec.getPorts() != null) {
      spec.getPorts()
          .forEach(
              port ->
                  ports.add(
                      List.of(
                          String.valueOf(port.getName()),
                          String.valueOf(port.getProtocol()),
                          String.valueOf(port.getPort()),
                          String.valueOf(port.getNodePort()),
                          port.getTargetPort() == null ? "null" : JSON.asJson(port.getTargetPort()),
                          String.valueOf(port.getAppProtocol()))));
    }
    fields.put("ports", ports);
    fields.put("sessionAffinity", String.valueOf(spec.getSessionAffinity()));
    fields.put(
        "sessionAffinityConfig",
        spec.getSessionAffinityConfig() == null
            ? "null"
            : JSON.asJson(spec.getSessionAffinityConfig()));
    fields.put("loadBalancerIP", String.valueOf(spec.getLoadBalancerIP()));
    fields.put("externalIPs", orEmpty(spec.getExternalIPs()));
    fields.put("annotations", LoadBalancerServices.relevantAnnotations(service));
    fields.put("externalTrafficPolicy", String.valueOf(spec.getExternalTrafficPolicy()));
    fields.put("healthCheckNodePort", String.valueOf(spec.getHealthCheckNodePort()));
    fields.put("ipFamilies", orEmpty(spec.getIpFamilies()).size());
    return digest(JSON.asJson(fields));
  }

  static String nodesDigest(List<Node> nodes) {
    return digest(JSON.asJson(LoadBalancerNodes.backends(nodes)));
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
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
