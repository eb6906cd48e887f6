package io.ccm4j.doctor;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.List;
import java.util.Map;

/**
 * Whether a pod's node selector and required node affinity allow a node, as the scheduler's
 * NodeAffinity filter decides it (the terms are ORed, a term's requirements ANDed).
 */
final class NodePlacement {

  private NodePlacement() {}

  static boolean allows(PodSpec pod, Node node) {
    if (pod == null) {
      return true;
    }
    Map<String, String> labels =
        node.getMetadata() == null || node.getMetadata().getLabels() == null
            ? Map.of()
            : node.getMetadata().getLabels();
    if (pod.getNodeSelector() != null
        && !pod.getNodeSelector().entrySet().stream()
            .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
      return false;
    }
    List<NodeSelectorTerm> terms = PodSpecs.requiredNodeSelectorTerms(pod);
    if (terms.isEmpty()) {
      return true;
    }
    String name = node.getMetadata() == null ? null : node.getMetadata().getName();
    return terms.stream().anyMatch(term -> matches(term, labels, name));
  }

  private static boolean matches(NodeSelectorTerm term, Map<String, String> labels, String name) {
    List<NodeSelectorRequirement> expressions =
        term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
    List<NodeSelectorRequirement> fields =
        term.getMatchFields() == null ? List.of() : term.getMatchFields();
    if (expressions.isEmpty() && fields.isEmpty()) {
      return false; // an empty term matches no node
    }
    return expressions.stream().allMatch(r -> matches(r, labels.get(r.getKey())))
        && fields.stream().allMatch(r -> "metadata.name".equals(r.getKey()) && matches(r, name));
  }

  private static boolean matches(NodeSelectorRequirement requirement, String value) {
    List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
    return switch (String.valueOf(requirement.getOperator())) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      case "Gt", "Lt" -> compares(requirement.getOperator(), value, values);
      default -> false;
    };
  }

  private static boolean compares(String operator, String value, List<String> values) {
    if (value == null || values.size() != 1) {
      return false;
    }
    try {
      long have = Long.parseLong(value);
      long bound = Long.parseLong(values.get(0));
      return "Gt".equals(operator) ? have > bound : have < bound;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
