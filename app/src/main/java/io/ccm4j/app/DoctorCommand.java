package io.ccm4j.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ccm4j.app.options.KubeClientOptions;
import io.ccm4j.cloudprovider.api.WellKnownComponents;
import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.Finding;
import io.ccm4j.doctor.ManifestDocument;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.doctor.Rule;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ccm4j doctor}: the bootstrap deadlocks a CCM's manifests would cause, and their fixes. */
@Command(
    name = "doctor",
    description = {
      "Find and fix a CCM's bootstrap deadlocks, in manifests or a live cluster.",
      "",
      "Read manifests (files, directories, multi-document YAML, Helm output, kind: List), find "
          + "the cloud-controller-manager workloads and report each recommendation of the "
          + "chicken-and-egg post they violate: severity, what will happen, the fix. Exit code 1 when "
          + "there is an error, 2 when a manifest cannot be read or holds a malformed object (the "
          + "message names file:line)."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class DoctorCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "<path>", arity = "0..*", description = "Manifest files or directories.")
  List<Path> paths = List.of();

  @Option(
      names = "--kubeconfig",
      paramLabel = "<file>",
      description =
          "Diagnose a live cluster instead: stuck nodes, pending CCM and CNI pods, the leader Lease"
              + " (the one the CCM pods' --leader-elect-resource-{namespace,name} name), the cycle.")
  Path kubeconfig;

  @Option(
      names = "--stuck-after",
      paramLabel = "<duration>",
      defaultValue = "2m",
      converter = io.ccm4j.app.options.GoDurationConverter.class,
      description =
          "With --kubeconfig: how long a node may stay uninitialized before it counts as stuck. Default: ${DEFAULT-VALUE}.")
  java.time.Duration stuckAfter;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "<format>",
      defaultValue = "text",
      description =
          "text or json (a JSON document on standard output even when a manifest cannot be read:"
              + " its file, line and reason under unreadable). Default: ${DEFAULT-VALUE}.")
  String output;

  @Option(
      names = "--static-pod",
      description =
          "Judge every bare Pod in the manifests as a static pod (a file in the kubelet's"
              + " --pod-manifest-path, such as /etc/kubernetes/manifests): the scheduler never sees"
              + " it, so taints, placement and the scalable-workload advice do not apply. Pods"
              + " shaped like kubeadm's (tier: control-plane, or /etc/kubernetes mounted) are"
              + " judged so without it.")
  boolean staticPod;

  @Option(
      names = "--fix",
      paramLabel = "<file>",
      description =
          "Write the input to this file with the CCM workloads corrected: only the fixed fields"
              + " change; comments, order, quoting and every other object stay.")
  Path fix;

  @Option(
      names = "--diff",
      description =
          "Print the corrections as a unified diff of each input file instead of writing them.")
  boolean diff;

  @Override
  public Integer call() throws Exception {
    if (!output.equals("text") && !output.equals("json")) {
      throw new ParameterException(
          spec.commandLine(), "--output must be text or json, got " + output);
    }
    if (kubeconfig != null && staticPod) {
      throw new ParameterException(
          spec.commandLine(),
          "--static-pod judges manifests; in a live cluster static pods are known by their mirror"
              + " pods");
    }
    if (fix != null && diff) {
      throw new ParameterException(
          spec.commandLine(),
          "--diff prints the corrections instead of writing them: give --fix <file> or --diff");
    }
    if (diff && output.equals("json")) {
      throw new ParameterException(spec.commandLine(), "--diff prints text: not with -o json");
    }
    if (kubeconfig != null && (fix != null || diff)) {
      throw new ParameterException(
          spec.commandLine(), "--fix and --diff correct manifests, not a live cluster");
    }
    if (kubeconfig != null) {
      return diagnoseCluster();
    }
    if (paths.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(), "give manifest paths, or --kubeconfig for a live cluster");
    }
    List<CcmWorkload> workloads;
    List<ManifestDocument> documents;
    List<String> notCcms;
    Map<CcmWorkload, List<Finding>> findings = new LinkedHashMap<>();
    List<ManifestException> unreadable = new ArrayList<>();
    List<ManifestException> patches = new ArrayList<>();
    PrintWriter out = spec.commandLine().getOut();
    try {
      documents =
          Manifests.read(
              paths,
              skipped -> {
                (skipped instanceof Manifests.KustomizePatchException ? patches : unreadable)
                    .add(skipped);
                spec.commandLine().getErr().printf("skipped %s%n", skipped.getMessage());
              });
      workloads = Doctor.workloads(documents);
      if (staticPod) {
        workloads = workloads.stream().map(CcmWorkload::asStaticPod).toList();
      }
      notCcms = workloads.isEmpty() ? Doctor.notTakenForCcms(documents) : List.of();
      for (CcmWorkload workload : workloads) {
        findings.put(workload, Doctor.findings(workload));
      }
    } catch (ManifestException e) {
      if (output.equals("json")) {
        // Tools read standard output: it says what could not be read, as the message on stderr.
        unreadable.add(e);
        printJson(out, List.of(), List.of(), List.of(), unreadable, patches);
      }
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    List<Finding> all = findings.values().stream().flatMap(List::stream).toList();
    if (output.equals("json")) {
      printJson(out, workloads, all, notCcms, unreadable, patches);
    } else {
      printText(out, findings, notCcms);
    }
    if ((fix != null || diff) && workloads.isEmpty()) {
      if (output.equals("text")) {
        out.println(fix != null ? "Nothing to fix: " + fix + " not written." : "Nothing to fix.");
      }
    } else if (fix != null || diff) {
      Map<Path, String> fixedTexts;
      try {
        for (CcmWorkload workload : workloads) {
          Doctor.fix(workload)
              .forEach(byHand -> spec.commandLine().getErr().printf("note: %s%n", byHand));
        }
        fixedTexts =
            Doctor.fixedTexts(
                documents,
                workloads,
                notice -> spec.commandLine().getErr().printf("note: %s%n", notice));
      } catch (ManifestException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      if (diff) {
        printDiff(out, documents, fixedTexts);
      } else {
        // Written even unchanged, so `doctor --fix out.yaml && kubectl apply -f out.yaml` works
        // for a manifest that needs nothing; what is left (a placeholder to fill in) the notes say.
        Files.writeString(fix, wholeInput(documents, fixedTexts));
        if (output.equals("text")) {
          int objects = documents.size();
          out.printf(
              "Wrote the input (%d %s) to %s %s.%n",
              objects,
              objects == 1 ? "object" : "objects",
              fix,
              fixedTexts.isEmpty()
                  ? "unchanged: nothing in it is for --fix to change"
                  : "with the CCM workloads corrected");
        }
      }
    }
    out.flush();
    return all.stream().anyMatch(f -> f.severity() == Rule.Severity.ERROR) ? 1 : 0;
  }

  /**
   * The report for tools: the CCM workloads, their findings, the workloads not taken for a CCM, and
   * the manifests that could not be read (a file skipped in a directory scan, or the one that
   * stopped the doctor, exit code 2), each with its file, line (null when the whole file is
   * concerned) and reason.
   */
  private static void printJson(
      PrintWriter out,
      List<CcmWorkload> workloads,
      List<Finding> findings,
      List<String> notCcms,
      List<ManifestException> unreadable,
      List<ManifestException> kustomizePatches)
      throws JsonProcessingException {
    Map<String, Object> report = new LinkedHashMap<>();
    report.put(
        "workloads",
        workloads.stream()
            .map(
                w -> {
                  Map<String, Object> entry = new LinkedHashMap<>();
                  entry.put("workload", w.kind() + "/" + w.name());
                  entry.put("location", w.source().location());
                  entry.put("recognisedBy", w.recognisedBy());
                  return entry;
                })
            .toList());
    report.put("findings", findings);
    report.put("notTakenForCcms", notCcms);
    report.put("unreadable", unreadable.stream().map(DoctorCommand::fileEntry).toList());
    report.put(
        "kustomizePatches", kustomizePatches.stream().map(DoctorCommand::fileEntry).toList());
    out.println(
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
    out.flush();
  }

  private static Map<String, Object> fileEntry(ManifestException e) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("file", e.file().toString());
    entry.put("line", e.line() > 0 ? e.line() : null);
    entry.put("reason", e.reason());
    return entry;
  }

  private int diagnoseCluster() throws Exception {
    if (!Files.isReadable(kubeconfig)) {
      throw new ParameterException(spec.commandLine(), "--kubeconfig: cannot read " + kubeconfig);
    }
    io.fabric8.kubernetes.client.Config config =
        KubeClientOptions.fromKubeconfig("--kubeconfig", kubeconfig);
    List<io.ccm4j.doctor.LiveDoctor.Observation> observations;
    try (var client =
        new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build()) {
      observations =
          // The Lease each CCM pod's --leader-elect-resource-{namespace,name} names; these are
          // the flags' defaults.
          new io.ccm4j.doctor.LiveDoctor(
                  client,
                  stuckAfter,
                  WellKnownNamespaces.KUBE_SYSTEM,
                  WellKnownComponents.CLOUD_CONTROLLER_MANAGER)
              .diagnose();
    }
    PrintWriter out = spec.commandLine().getOut();
    if (output.equals("json")) {
      out.println(
          new ObjectMapper()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(Map.of("observations", observations)));
    } else if (observations.isEmpty()) {
      out.println("No bootstrap problem found.");
    } else {
      for (var observation : observations) {
        out.printf(
            "%-7s %s%n        %s%n",
            observation.severity(), observation.what(), observation.detail());
      }
    }
    out.flush();
    return observations.stream().anyMatch(o -> o.severity() == Rule.Severity.ERROR) ? 1 : 0;
  }

  /** Every input file's text in order, fixed where it changed, as one multi-document file. */
  private static String wholeInput(List<ManifestDocument> documents, Map<Path, String> fixed) {
    StringBuilder all = new StringBuilder();
    for (Map.Entry<Path, String> input : inputTexts(documents).entrySet()) {
      Path file = input.getKey();
      String text = fixed.containsKey(file) ? fixed.get(file) : input.getValue();
      if (!all.isEmpty()) {
        all.append(all.charAt(all.length() - 1) == '\n' ? "" : "\n").append("---\n");
      }
      all.append(text);
    }
    return all.toString();
  }

  /**
   * Each input file's text as it was read, in order: read once, as a pipe ({@code /dev/stdin},
   * {@code <(helm template ...)}) gives it.
   */
  private static Map<Path, String> inputTexts(List<ManifestDocument> documents) {
    Map<Path, String> texts = new LinkedHashMap<>();
    documents.forEach(d -> texts.putIfAbsent(d.file(), d.fileText()));
    return texts;
  }

  /** A unified diff per changed file, as {@code diff -u} prints it. */
  private static void printDiff(
      PrintWriter out, List<ManifestDocument> documents, Map<Path, String> fixed) {
    Map<Path, String> inputs = inputTexts(documents);
    for (Map.Entry<Path, String> file : fixed.entrySet()) {
      List<String> before = inputs.get(file.getKey()).lines().toList();
      List<String> after = file.getValue().lines().toList();
      com.github.difflib.UnifiedDiffUtils.generateUnifiedDiff(
              file.getKey().toString(),
              file.getKey().toString(),
              before,
              com.github.difflib.DiffUtils.diff(before, after),
              3)
          .forEach(out::println);
    }
  }

  /** Each workload with its own findings (two workloads may share a kind and name). */
  private static void printText(
      PrintWriter out, Map<CcmWorkload, List<Finding>> findings, List<String> notCcms) {
    if (findings.isEmpty()) {
      out.println("No cloud-controller-manager workload found.");
      for (String line : notCcms) {
        out.printf("  WARNING %s%n", line);
      }
      return;
    }
    findings.forEach(
        (workload, mine) -> {
          out.printf(
              "%s/%s (%s): %s%n",
              workload.kind(),
              workload.name(),
              workload.source().location(),
              mine.isEmpty() ? "follows every recommendation" : mine.size() + " problem(s)");
          out.printf("  taken for a cloud-controller-manager: %s%n", workload.recognisedBy());
          for (Finding finding : mine) {
            out.printf("  %-7s %s%n", finding.severity(), finding.rule());
            out.printf("          what happens: %s%n", finding.consequence());
            out.printf("          fix: %s%n", finding.fix());
            out.printf("          see: %s, %s%n", finding.source(), finding.sourceUrl());
          }
        });
  }
}
