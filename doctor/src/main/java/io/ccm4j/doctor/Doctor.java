package io.ccm4j.doctor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

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
   * version, each written out in full: a drop-in for the input (ServiceAccounts, RBAC, Secrets
   * stay). Objects of a {@code kind: List} come out one document each; comments are not kept: what
   * {@link #fixedTexts} falls back to.
   */
  public static String manifestsWith(
      List<ManifestDocument> documents, List<CcmWorkload> workloads) {
    Map<ManifestDocument, CcmWorkload> bySource = new IdentityHashMap<>();
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
   * Each input file that holds a fixed CCM workload, with its text as {@code --fix} writes it: only
   * the fields the fix changed differ; comments, key order, quoting and every other object stay as
   * they are ({@link ManifestRewriter}). A file whose text cannot be edited so (the edited text
   * would not read back as the fixed objects) is written out in full, without its comments, and
   * {@code notices} says so.
   *
   * @param workloads the workloads, fixed, found in {@code documents}
   * @throws ManifestException when a file can no longer be read
   */
  public static Map<Path, String> fixedTexts(
      List<ManifestDocument> documents, List<CcmWorkload> workloads, Consumer<String> notices)
      throws ManifestException {
    Map<ManifestDocument, CcmWorkload> bySource = new IdentityHashMap<>();
    workloads.forEach(workload -> bySource.put(workload.source(), workload));
    Map<Path, List<ManifestDocument>> byFile = new LinkedHashMap<>();
    documents.forEach(d -> byFile.computeIfAbsent(d.file(), f -> new ArrayList<>()).add(d));
    Map<Path, String> texts = new LinkedHashMap<>();
    for (Map.Entry<Path, List<ManifestDocument>> file : byFile.entrySet()) {
      List<ManifestDocument> mine = file.getValue();
      List<ManifestRewriter.Change> changes = new ArrayList<>();
      for (int i = 0; i < mine.size(); i++) {
        CcmWorkload workload = bySource.get(mine.get(i));
        if (workload != null) {
          changes.add(
              new ManifestRewriter.Change(
                  i, CcmWorkload.normalised(mine.get(i)), workload.asMap()));
        }
      }
      if (changes.stream().allMatch(c -> c.before().equals(c.after()))) {
        continue;
      }
      // The text as it was read: a pipe cannot be read again.
      String text = mine.get(0).fileText();
      String rewritten;
      try {
        rewritten = ManifestRewriter.rewrite(text, changes);
        String problem = readsBackAs(rewritten, file.getKey(), mine, changes);
        if (problem != null) {
          throw new IllegalStateException(problem);
        }
      } catch (RuntimeException | ManifestException e) {
        notices.accept(
            "%s: its formatting could not be kept (%s): written out in full, without comments"
                .formatted(file.getKey(), e.getMessage()));
        rewritten = manifestsWith(mine, workloads);
      }
      texts.put(file.getKey(), rewritten);
    }
    return texts;
  }

  /** Why the rewritten text is not the input with the changes; null when it is. */
  private static String readsBackAs(
      String rewritten,
      Path file,
      List<ManifestDocument> originals,
      List<ManifestRewriter.Change> changes)
      throws ManifestException {
    List<ManifestDocument> again = Manifests.read(rewritten, file);
    if (again.size() != originals.size()) {
      return again.size() + " objects read back, not " + originals.size();
    }
    Map<Integer, ManifestRewriter.Change> byIndex = new HashMap<>();
    changes.forEach(c -> byIndex.put(c.index(), c));
    for (int i = 0; i < again.size(); i++) {
      ManifestRewriter.Change change = byIndex.get(i);
      boolean same =
          change == null
              ? again.get(i).object().equals(originals.get(i).object())
              : CcmWorkload.normalised(again.get(i)).equals(change.after());
      if (!same) {
        return "object " + (i + 1) + " reads back otherwise";
      }
    }
    return null;
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
   * @return what is left to the user, one line each: a flag inside a shell command that cannot be
   *     rewritten safely
   * @throws ManifestException as {@link #findings}
   */
  public static List<String> fix(CcmWorkload workload) throws ManifestException {
    try {
      return Fixes.fixInPlace(workload);
    } catch (RuntimeException e) {
      throw unreadable(workload, e);
    }
  }

  private static ManifestException unreadable(CcmWorkload workload, RuntimeException e) {
    return new ManifestException(
        workload.source().file(),
        workload.source().line(),
        "%s/%s: cannot be judged: %s".formatted(workload.kind(), workload.name(), e));
  }
}
