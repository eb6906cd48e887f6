package io.ccm4j.lab;

import io.ccm4j.app.options.GoDurationConverter;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Scenarios;
import io.ccm4j.lab.real.RealNodesLab;
import io.ccm4j.lab.real.RealNodesUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j lab}: reproduce a cluster's bootstrap with a CCM manifest, and judge it. */
@Command(
    name = "lab",
    description = {
      "Reproduce a cluster's bootstrap with a CCM manifest and judge it.",
      "",
      "Bootstrap a cluster on this machine (real kube-apiserver, kube-scheduler and workload "
          + "controllers; simulated kubelets, CNI and cloud) with a cloud-controller-manager "
          + "manifest, show the progress, end with a verdict and write an HTML report with a "
          + "timeline. Once bootstrapped, a LoadBalancer Service is created and a request to its load "
          + "balancer must be answered by a node. Exit code 0 only when the cluster bootstrapped and "
          + "that request was answered."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class LabCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--scenario",
      paramLabel = "<name>",
      defaultValue = Scenarios.RECOMMENDED,
      description =
          "recommended (deploy/), missing-uninitialized-toleration, not-ready-noexecute,"
              + " replicas-without-leader-election, pod-network, control-plane-only-taint, master-only-toleration,"
              + " network-unavailable-with-routes, kubevirt (a tenant cluster on the VMs of an"
              + " infrastructure cluster, with the kubevirt provider)."
              + " Default: ${DEFAULT-VALUE}.")
  String scenario;

  @Option(
      names = "--manifest",
      paramLabel = "<file>",
      description = "Run your own CCM manifest instead of a scenario.")
  Path manifest;

  @Option(
      names = "--kubelets",
      paramLabel = "<kind>",
      defaultValue = "simulated",
      description =
          "simulated (the default, and the scale tool) or real: two control-plane nodes and two"
              + " workers, each a real kubelet with its own containerd and kube-proxy in"
              + " namespaces of its own, and a CNI that waits for the CCM (root, Linux; see"
              + " docs/lab.md).")
  String kubelets;

  @Option(
      names = "--timeout",
      paramLabel = "<duration>",
      defaultValue = "90s",
      converter = GoDurationConverter.class,
      description =
          "Call it a deadlock after this long at the latest; a cycle the live analysis names ends"
              + " the run once nothing has changed for "
              + DeadlockProof.WINDOW_SECONDS
              + "s. Default: 90s.")
  Duration timeout;

  @Option(
      names = "--report",
      paramLabel = "<dir>",
      defaultValue = "lab-report",
      description = "Where to write the HTML report. Default: ${DEFAULT-VALUE}.")
  Path report;

  @Option(
      names = {"-v", "--verbose"},
      description =
          "Print the log of what the lab runs in its process (the managers, the node-lifecycle"
              + " controller) on standard error; by default it goes to a file beside the report.")
  boolean verbose;

  @Override
  public Integer call() throws Exception {
    String name;
    String yaml;
    if (manifest != null) {
      LabManifest.Read read;
      try {
        read = LabManifest.read(manifest);
      } catch (ManifestException e) {
        throw new ParameterException(spec.commandLine(), "--manifest: " + e.getMessage());
      }
      name = read.name();
      yaml = read.text();
    } else {
      if (!Scenarios.NAMES.contains(scenario)) {
        throw new ParameterException(
            spec.commandLine(),
            "--scenario: unknown scenario \"%s\"; known: %s"
                .formatted(scenario, String.join(", ", Scenarios.NAMES)));
      }
      name = scenario;
      yaml = Scenarios.manifest(scenario);
    }
    LabResult result;
    if (!"real".equals(kubelets) && !"simulated".equals(kubelets)) {
      throw new ParameterException(
          spec.commandLine(),
          "--kubelets: unknown kind \"%s\"; known: simulated, real".formatted(kubelets));
    }
    try {
      if (verbose) {
        result = runLab(name, yaml);
      } else {
        Files.createDirectories(report);
        Path log = report.resolve("lab-" + name + ".log");
        System.out.printf(
            "lab: log: %s (the managers, the node-lifecycle controller; -v prints it here)%n",
            log.toAbsolutePath());
        try (LabLog ignored = LabLog.to(log)) {
          result = runLab(name, yaml);
        }
      }
    } catch (RealNodesUnavailableException e) {
      System.err.println("lab: " + e.getMessage());
      return 2;
    } catch (LabManifest.RefusedException e) {
      System.err.println("lab: --manifest: " + e.getMessage());
      return 2;
    }
    Path file = LabReport.write(result, report);
    System.out.println();
    if (result.verdict().equals(LabResult.BOOTSTRAPPED)) {
      System.out.printf("Verdict: bootstrapped in %.1f s.%n", result.seconds());
      result
          .traffic()
          .ifPresent(
              traffic ->
                  System.out.printf(
                      "Traffic: %s%s.%n", traffic.answered() ? "" : "FAILED: ", traffic.summary()));
    } else {
      System.out.printf("Verdict: %s after %.1f s.%n", result.verdict(), result.seconds());
      result.explanation().forEach(line -> System.out.println("  - " + line));
    }
    System.out.printf("Report: %s%n", file.toAbsolutePath());
    return result.succeeded() ? 0 : 1;
  }

  private LabResult runLab(String name, String yaml) throws Exception {
    if ("real".equals(kubelets)) {
      return new RealNodesLab(timeout, System.out).run(name, yaml);
    }
    return new BootstrapLab(new BootstrapLab.Settings(3, 3, timeout), System.out).run(name, yaml);
  }
}
