package io.ccm4j.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Checks cloud-controller-manager workloads against {@link Rule}, and fixes what can be fixed. */
public final class Doctor {

  private Doctor() {}

  /**
   * The CCM workloads among the documents.
   *
   * @throws ManifestException naming the file and line of a document that is no valid object
   */
  public static List<CcmWorkload> workloads(List<ManifestDocument> documents)
      throws ManifestException {
    CcmRbac rbac = CcmRbac.of(documents);
    List<CcmWorkload> workloads = new ArrayList<>();
    for (ManifestDocument document : documents) {
      CcmWorkload.detect(document, rbac).ifPresent(workloads::add);
    }
    return workloads;
  }

  /**
   * When no CCM is found: the workloads with signs of one all the same (kube-controller-manager,
   * cluster-autoscaler, a node agent or CSI driver, or a CCM with too few signs), one line each
   * naming the signs and why it is not taken for a CCM.
   */
  public static List<String> notTakenForCcms(List<ManifestDocument> documents) {
    CcmRbac rbac = CcmRbac.of(documents);
    List<String> lines = new ArrayList<>();
    for (ManifestDocument document : documents) {
      CcmWorkload.notTakenForCcm(document, rbac).ifPresent(lines::add);
    }
    return lines;
  }

  /**
   * The input again, every object in its order, with each CCM workload replaced by its (fixed)
   * version: {@code --fix}'s output, a drop-in for the input (ServiceAccounts, RBAC, Secrets stay).
   * Objects of a {@code kind: List} come out one document each; comments are not kept.
   */
  public static String manifestsWith(
      List<ManifestDocument> documents, List<CcmWorkload> workloads) {
    Map<ManifestDocument, CcmWorkload> bySource = new java.util.IdentityHashMap<>();
    workloads.forEach(workload -> bySource.put(workload.source(), workload));
    List<String> yaml = new ArrayList<>();
    for (ManifestDocument document : documents) {
      CcmWorkload workload = bySource.get(document);
      String text = workload != null ? workload.toYaml() : CcmWorkload.yaml(document.object());
      yaml.add(text.startsWith("---\n") ? text.substring(4) : text);
    }
    return String.join("---\n", yaml);
  }

  /**
   * The findings for one workload.
   *
   * @throws ManifestException naming the workload's file and line when its content cannot be judged
   *     (an empty item where an object belongs)
   */
  public static List<Finding> findings(CcmWorkload workload) throws ManifestException {
    try {
      return check(workload).stream().map(rule -> Checks.finding(workload, rule)).toList();
    } catch (RuntimeException e) {
      throw unreadable(workload, e);
    }
  }

  /** Every rule the workload violates. */
  public static List<Rule> check(CcmWorkload workload) {
    return Checks.check(workload);
  }

  /** All findings for all workloads. */
  public static List<Finding> examine(List<ManifestDocument> documents) throws ManifestException {
    List<Finding> findings = new ArrayList<>();
    for (CcmWorkload workload : workloads(documents)) {
      findings.addAll(findings(workload));
    }
    return findings;
  }

  /**
   * Changes the workload in place so that every fixable rule passes.
   *
   * @throws ManifestException as {@link #findings}
   */
  public static void fix(CcmWorkload workload) throws ManifestException {
    try {
      Fixes.fixInPlace(workload);
    } catch (RuntimeException e) {
      throw unreadable(workload, e);
    }
  }

  private static ManifestException unreadable(CcmWorkload workload, RuntimeException e) {
    return new ManifestException(
        "%s: %s/%s: cannot be judged: %s"
            .formatted(workload.source().location(), workload.kind(), workload.name(), e));
  }
}
