package io.ccm4j.doctor;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The scheduling terms of a pod keyed on a node label that only the cloud-controller-manager sets,
 * when it initialises a node (zone, region, instance type; the kubelet sets {@code
 * kubernetes.io/hostname}, the OS and the architecture when it registers it), and what
 * kube-scheduler does with a node that lacks the key: PodTopologySpread's filter rejects it for a
 * constraint with {@code whenUnsatisfiable: DoNotSchedule}, InterPodAffinity's for a required pod
 * affinity term, NodeAffinity's for a nodeSelector entry on it or a required node affinity whose
 * every term asks for such a label to be there ({@code In}, {@code Exists}, {@code Gt}, {@code Lt};
 * {@code NotIn} and {@code DoesNotExist} hold on a node without it); a required anti-affinity term
 * only counts pods on nodes that have the key, so it keeps nothing apart there.
 */
final class CcmLabelTerms {

  private CcmLabelTerms() {}

  /** The labels the cloud-node controller sets from the cloud's instance metadata. */
  static final Set<String> SET_BY_CCM =
      Set.of(
          WellKnownLabels.ZONE,
          WellKnownLabels.ZONE_BETA,
          WellKnownLabels.REGION,
          WellKnownLabels.REGION_BETA,
          WellKnownLabels.INSTANCE_TYPE,
          WellKnownLabels.INSTANCE_TYPE_BETA);

  static final String DO_NOT_SCHEDULE = "DoNotSchedule";
  static final String SCHEDULE_ANYWAY = "ScheduleAnyway";

  /** The weight a required term moved to the preferred ones gets: the most a preference has. */
  static final int PREFERRED_WEIGHT = 100;

  /** How the scheduler treats a node without the term's key. */
  enum Kind {
    /** Filtered out: the pod never schedules on a node without the key. */
    SPREAD_DO_NOT_SCHEDULE,
    /** Filtered out: the term is met only on a node with the key. */
    REQUIRED_AFFINITY,
    /** Filtered out: a nodeSelector entry matches only a node with the label and its value. */
    NODE_SELECTOR,
    /** Filtered out: every required node selector term asks for such a label to be there. */
    REQUIRED_NODE_AFFINITY,
    /** Feasible: the term counts no pod there, so it keeps nothing apart until the key is set. */
    REQUIRED_ANTI_AFFINITY
  }

  /**
   * One term: the field path below the pod spec, its key, how a node without it fares, and for a
   * node selection what it asks of the label.
   */
  record Term(String path, String key, Kind kind, String asks) {

    Term(String path, String key, Kind kind) {
      this(path, key, kind, "");
    }

    boolean filtersUnlabelledNodes() {
      return kind != Kind.REQUIRED_ANTI_AFFINITY;
    }

    /** The term as the finding names it, below the pod spec at {@code podPath}. */
    String said(String podPath) {
      return switch (kind) {
        case SPREAD_DO_NOT_SCHEDULE ->
            "%s%s (whenUnsatisfiable: DoNotSchedule) is keyed on %s".formatted(podPath, path, key);
        case NODE_SELECTOR, REQUIRED_NODE_AFFINITY ->
            "%s%s asks for %s".formatted(podPath, path, asks);
        default -> "%s%s.topologyKey is %s".formatted(podPath, path, key);
      };
    }
  }

  static final String REQUIRED_NODE_TERMS =
      "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";

  /**
   * Every term of the pod keyed on a label only the CCM sets; of the anti-affinity terms, those
   * that select the pod's own labels (that keep its replicas apart): another is the user's choice
   * of where not to run.
   */
  static List<Term> of(PodSpec pod, Map<String, String> podLabels) {
    List<Term> terms = new ArrayList<>();
    List<TopologySpreadConstraint> spread = pod.getTopologySpreadConstraints();
    for (int i = 0; spread != null && i < spread.size(); i++) {
      TopologySpreadConstraint c = spread.get(i);
      if (c != null && setByCcm(c.getTopologyKey()) && mustBeSatisfied(c)) {
        terms.add(
            new Term(
                "topologySpreadConstraints[%d]".formatted(i),
                c.getTopologyKey(),
                Kind.SPREAD_DO_NOT_SCHEDULE));
      }
    }
    var affinity = pod.getAffinity();
    if (affinity != null && affinity.getPodAffinity() != null) {
      add(
          terms,
          affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(),
          "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
          Kind.REQUIRED_AFFINITY,
          CcmLabelTerms::keyedOnCcmLabel);
    }
    if (affinity != null && affinity.getPodAntiAffinity() != null) {
      add(
          terms,
          affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(),
          "affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
          Kind.REQUIRED_ANTI_AFFINITY,
          keepsApart(podLabels));
    }
    nodeSelection(pod, terms);
    return terms;
  }

  /**
   * The nodeSelector's entries on such a label, and the required node affinity's requirements on
   * one when no term can match a node without the CCM's labels (the terms are ORed: one that can
   * lets the pod on such nodes).
   */
  private static void nodeSelection(PodSpec pod, List<Term> terms) {
    if (pod.getNodeSelector() != null) {
      pod.getNodeSelector()
          .forEach(
              (key, value) -> {
                if (setByCcm(key)) {
                  terms.add(
                      new Term(
                          "nodeSelector", key, Kind.NODE_SELECTOR, "%s: %s".formatted(key, value)));
                }
              });
    }
    List<NodeSelectorTerm> required = PodSpecs.requiredNodeSelectorTermsAsListed(pod);
    if (!anyTermAsksNoCcmLabel(required)) {
      for (int i = 0; i < required.size(); i++) {
        List<NodeSelectorRequirement> expressions = expressionsOf(required.get(i));
        for (int j = 0; j < expressions.size(); j++) {
          NodeSelectorRequirement r = expressions.get(j);
          if (needsCcmLabel(r)) {
            terms.add(
                new Term(
                    "%s[%d].matchExpressions[%d]".formatted(REQUIRED_NODE_TERMS, i, j),
                    r.getKey(),
                    Kind.REQUIRED_NODE_AFFINITY,
                    r.getKey()
                        + " "
                        + r.getOperator()
                        + (r.getValues() == null || r.getValues().isEmpty()
                            ? ""
                            : " " + r.getValues())));
          }
        }
      }
    }
  }

  /**
   * Whether some term could match a node without the CCM's labels: one that is not empty (an empty
   * term matches no node) and asks none of them to be there. No terms: nothing to report.
   */
  private static boolean anyTermAsksNoCcmLabel(List<NodeSelectorTerm> terms) {
    return terms.stream().noneMatch(CcmLabelTerms::asksCcmLabel)
        || terms.stream().anyMatch(term -> term != null && !isEmpty(term) && !asksCcmLabel(term));
  }

  private static boolean asksCcmLabel(NodeSelectorTerm term) {
    return term != null && expressionsOf(term).stream().anyMatch(CcmLabelTerms::needsCcmLabel);
  }

  private static boolean isEmpty(NodeSelectorTerm term) {
    return expressionsOf(term).isEmpty()
        && (term.getMatchFields() == null || term.getMatchFields().isEmpty());
  }

  private static List<NodeSelectorRequirement> expressionsOf(NodeSelectorTerm term) {
    return term == null || term.getMatchExpressions() == null
        ? List.of()
        : term.getMatchExpressions();
  }

  /**
   * A requirement only a node with the label meets: every operator but {@code NotIn} and {@code
   * DoesNotExist}, which a node without it satisfies (the label selector's Matches).
   */
  private static boolean needsCcmLabel(NodeSelectorRequirement r) {
    return r != null
        && setByCcm(r.getKey())
        && !"NotIn".equals(r.getOperator())
        && !"DoesNotExist".equals(r.getOperator());
  }

  private static void add(
      List<Term> terms,
      List<PodAffinityTerm> list,
      String path,
      Kind kind,
      Predicate<PodAffinityTerm> counts) {
    for (int i = 0; list != null && i < list.size(); i++) {
      PodAffinityTerm term = list.get(i);
      if (counts.test(term)) {
        terms.add(new Term("%s[%d]".formatted(path, i), term.getTopologyKey(), kind));
      }
    }
  }

  /** An anti-affinity term on such a key against the pod's own labels: one pod per label value. */
  private static Predicate<PodAffinityTerm> keepsApart(Map<String, String> podLabels) {
    return term -> keyedOnCcmLabel(term) && selects(term.getLabelSelector(), podLabels);
  }

  /**
   * Whether a pod (anti-)affinity term's selector matches these labels, as the API server reads it:
   * no selector matches no pod, an empty one every pod.
   */
  static boolean selects(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    if (selector.getMatchLabels() != null
        && !selector.getMatchLabels().entrySet().stream()
            .allMatch(e -> Objects.equals(labels.get(e.getKey()), e.getValue()))) {
      return false;
    }
    for (LabelSelectorRequirement r :
        selector.getMatchExpressions() == null
            ? List.<LabelSelectorRequirement>of()
            : selector.getMatchExpressions()) {
      String value = labels.get(r.getKey());
      List<String> values = r.getValues() == null ? List.of() : r.getValues();
      boolean matches =
          switch (r.getOperator() == null ? "" : r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> false;
          };
      if (!matches) {
        return false;
      }
    }
    return true;
  }

  static boolean setByCcm(String key) {
    return key != null && SET_BY_CCM.contains(key);
  }

  /** The API requires whenUnsatisfiable; a missing one is read as the stricter value. */
  private static boolean mustBeSatisfied(TopologySpreadConstraint c) {
    return !SCHEDULE_ANYWAY.equals(c.getWhenUnsatisfiable());
  }

  /**
   * Spread constraints on such a key become {@code ScheduleAnyway} (a preference the scheduler
   * scores, never a filter); required pod affinity terms on it, and when {@code antiAffinityToo}
   * the anti-affinity terms on it that select the pod's own labels, become preferred terms of
   * weight {@value #PREFERRED_WEIGHT}. Other terms stay as they are.
   */
  static void makePreferences(PodSpec pod, Map<String, String> podLabels, boolean antiAffinityToo) {
    preferNodeSelection(pod);
    if (pod.getTopologySpreadConstraints() != null) {
      for (TopologySpreadConstraint c : pod.getTopologySpreadConstraints()) {
        if (c != null && setByCcm(c.getTopologyKey()) && mustBeSatisfied(c)) {
          c.setWhenUnsatisfiable(SCHEDULE_ANYWAY);
        }
      }
    }
    var affinity = pod.getAffinity();
    if (affinity == null) {
      return;
    }
    var podAffinity = affinity.getPodAffinity();
    if (podAffinity != null) {
      Predicate<PodAffinityTerm> move = CcmLabelTerms::keyedOnCcmLabel;
      List<WeightedPodAffinityTerm> preferred =
          moved(
              podAffinity.getRequiredDuringSchedulingIgnoredDuringExecution(),
              podAffinity.getPreferredDuringSchedulingIgnoredDuringExecution(),
              move);
      if (preferred != null) {
        podAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(
            remaining(podAffinity.getRequiredDuringSchedulingIgnoredDuringExecution(), move));
        podAffinity.setPreferredDuringSchedulingIgnoredDuringExecution(preferred);
      }
    }
    var antiAffinity = affinity.getPodAntiAffinity();
    if (antiAffinityToo && antiAffinity != null) {
      Predicate<PodAffinityTerm> move = keepsApart(podLabels);
      List<WeightedPodAffinityTerm> preferred =
          moved(
              antiAffinity.getRequiredDuringSchedulingIgnoredDuringExecution(),
              antiAffinity.getPreferredDuringSchedulingIgnoredDuringExecution(),
              move);
      if (preferred != null) {
        antiAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(
            remaining(antiAffinity.getRequiredDuringSchedulingIgnoredDuringExecution(), move));
        antiAffinity.setPreferredDuringSchedulingIgnoredDuringExecution(preferred);
      }
    }
  }

  /**
   * The nodeSelector's entries on such a label leave it and become one preferred node selector term
   * ({@code key In [value]}, ANDed as the entries were); when every required node selector term
   * asks for such a label, each such term is kept as a preference and stays required without those
   * requirements (a term left with none is dropped; with no term left, nothing is required).
   */
  private static void preferNodeSelection(PodSpec pod) {
    List<PreferredSchedulingTerm> preferred = new ArrayList<>();
    if (pod.getNodeSelector() != null
        && pod.getNodeSelector().keySet().stream().anyMatch(CcmLabelTerms::setByCcm)) {
      Map<String, String> selector = new LinkedHashMap<>();
      NodeSelectorTermBuilder moved = new NodeSelectorTermBuilder();
      pod.getNodeSelector()
          .forEach(
              (key, value) -> {
                if (setByCcm(key)) {
                  moved
                      .addNewMatchExpression()
                      .withKey(key)
                      .withOperator("In")
                      .withValues(value)
                      .endMatchExpression();
                } else {
                  selector.put(key, value);
                }
              });
      pod.setNodeSelector(selector.isEmpty() ? null : selector);
      preferred.add(new PreferredSchedulingTerm(moved.build(), PREFERRED_WEIGHT));
    }
    List<NodeSelectorTerm> required = PodSpecs.requiredNodeSelectorTermsAsListed(pod);
    if (!anyTermAsksNoCcmLabel(required)) {
      List<NodeSelectorTerm> left = new ArrayList<>();
      for (NodeSelectorTerm term : required) {
        if (!asksCcmLabel(term)) {
          left.add(term);
          continue;
        }
        preferred.add(
            new PreferredSchedulingTerm(
                new NodeSelectorTermBuilder(term).build(), PREFERRED_WEIGHT));
        NodeSelectorTerm rest =
            new NodeSelectorTermBuilder(term)
                .withMatchExpressions(
                    expressionsOf(term).stream().filter(r -> !needsCcmLabel(r)).toList())
                .build();
        if (!isEmpty(rest)) {
          left.add(rest);
        }
      }
      var nodeAffinity = pod.getAffinity().getNodeAffinity();
      nodeAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(
          left.stream().allMatch(t -> t == null || isEmpty(t)) ? null : new NodeSelector(left));
    }
    if (preferred.isEmpty()) {
      return;
    }
    var nodeAffinity = PodSpecs.affinityOf(pod).getNodeAffinity();
    List<PreferredSchedulingTerm> all = new ArrayList<>();
    if (nodeAffinity != null
        && nodeAffinity.getPreferredDuringSchedulingIgnoredDuringExecution() != null) {
      all.addAll(nodeAffinity.getPreferredDuringSchedulingIgnoredDuringExecution());
    }
    for (PreferredSchedulingTerm term : preferred) {
      if (!all.contains(term)) {
        all.add(term);
      }
    }
    pod.setAffinity(
        new AffinityBuilder(PodSpecs.affinityOf(pod))
            .editOrNewNodeAffinity()
            .withPreferredDuringSchedulingIgnoredDuringExecution(all)
            .endNodeAffinity()
            .build());
  }

  /** The preferred terms with the required ones to move added, or null when there are none. */
  private static List<WeightedPodAffinityTerm> moved(
      List<PodAffinityTerm> required,
      List<WeightedPodAffinityTerm> preferred,
      Predicate<PodAffinityTerm> move) {
    if (required == null || required.stream().noneMatch(move)) {
      return null;
    }
    List<WeightedPodAffinityTerm> all = new ArrayList<>(preferred == null ? List.of() : preferred);
    for (PodAffinityTerm term : required) {
      if (move.test(term)) {
        all.add(new WeightedPodAffinityTerm(term, PREFERRED_WEIGHT));
      }
    }
    return all;
  }

  /** The required terms left, or null (no field) when none is. */
  private static List<PodAffinityTerm> remaining(
      List<PodAffinityTerm> required, Predicate<PodAffinityTerm> move) {
    List<PodAffinityTerm> left = required.stream().filter(move.negate()).toList();
    return left.isEmpty() ? null : new ArrayList<>(left);
  }

  private static boolean keyedOnCcmLabel(PodAffinityTerm term) {
    return term != null && setByCcm(term.getTopologyKey());
  }
}
