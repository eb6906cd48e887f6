package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.doctor.Scenarios;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab's {@code kubevirt} scenario bootstraps a tenant cluster whose nodes are VMs of an
 * infrastructure cluster (two real API servers) with the recommended Deployment running {@code
 * --cloud-provider=kubevirt}, and its LoadBalancer Service answers through the infrastructure
 * cluster's load balancer.
 */
class LabKubeVirtIT {

  private static final List<String> NODES =
      List.of("cp-0", "cp-1", "cp-2", "worker-0", "worker-1", "worker-2");
  private static final Pattern VM =
      Pattern.compile(
          "VM and VMI kubevirt-lab/(\\S+) Running on (infra-\\d) \\(zone (lab-[abc])\\), IP (\\S+)");

  @TempDir Path temp;

  @Test
  void aTenantClusterOnKubeVirtVmsBootstrapsAndServesThroughTheInfrastructureLoadBalancer()
      throws Exception {
    LabResult result =
        new BootstrapLab(new BootstrapLab.Settings(3, 3, Duration.ofSeconds(60)), System.out)
            .run(Scenarios.KUBEVIRT, Scenarios.manifest(Scenarios.KUBEVIRT));
    System.out.printf(
        "MEASURED lab kubevirt: %s after %.1f s%n", result.verdict(), result.seconds());

    assertThat(result.verdict()).isEqualTo(LabResult.BOOTSTRAPPED);
    assertThat(result.succeeded()).isTrue();
    List<Timeline.Entry> entries = result.timeline().entries();

    // The pods of the recommended Deployment run the real kubevirt provider, from the cloud config
    // and infrastructure kubeconfig of the Secret they mount.
    assertThat(entries)
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .isEqualTo("Secret kubevirt-cloud-config mounted at /etc/ccm4j"))
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .isEqualTo(
                        "cloud: kubevirt, the infrastructure cluster's namespace kubevirt-lab"))
        .anySatisfy(e -> assertThat(e.what()).isEqualTo("leads"));

    // (a) Every tenant node is initialised from its VMI: providerID kubevirt://<name>, the zone of
    // the infrastructure node its VMI runs on.
    for (String node : NODES) {
      Timeline.Entry vm =
          entries.stream()
              .filter(e -> e.subject().equals(node) && VM.matcher(e.what()).matches())
              .findFirst()
              .orElseThrow(() -> new AssertionError("no VM for " + node + ": " + entries));
      Matcher started = VM.matcher(vm.what());
      assertThat(started.matches()).isTrue();
      assertThat(started.group(1)).isEqualTo(node);
      assertThat(vm.seconds()).as("VMs are setup, before the clock's zero").isNegative();
      assertThat(entries)
          .filteredOn(e -> e.subject().equals(node))
          .anySatisfy(
              e ->
                  assertThat(e.what())
                      .isEqualTo(
                          "initialised from its VMI by the CCM (kubevirt://%s, zone %s, region lab)"
                              .formatted(node, started.group(3))));
    }

    // (b) The tenant's LoadBalancer Service became an infrastructure Service whose load balancer
    // carried a real request to a worker's kube-proxy through an infrastructure node.
    assertThat(entries)
        .filteredOn(e -> e.subject().equals("infrastructure"))
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .matches(
                        "Service kubevirt-lab/a[0-9a-f]{31} of type LoadBalancer created by the"
                            + " tenant's CCM for Service default/lab-web"))
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .matches(
                        "load balancer 127\\.\\d+\\.100\\.\\d+ for Service kubevirt-lab/a[0-9a-f]{31},"
                            + " provisioned by its ccm4j \\(local cloud\\)"));
    Optional<LabResult.Traffic> traffic = result.traffic();
    assertThat(traffic)
        .hasValueSatisfying(
            t -> {
              assertThat(t.answered()).as(t.summary()).isTrue();
              assertThat(t.summary())
                  .matches(
                      "GET http://127\\.\\d+\\.100\\.\\d+/ was answered by node (worker-\\d) \\(its"
                          + " kube-proxy, for Service default/lab-web\\) through the infrastructure"
                          + " load balancer, infrastructure node infra-\\d and the virt-launcher pod"
                          + " of VMI kubevirt-lab/\\1");
            });

    String report = Files.readString(LabReport.write(result, temp));
    assertThat(report)
        .contains("<svg", "ccm4j lab: kubevirt", "through the infrastructure load balancer");
    Optional<HeadlessChromium> chromium = HeadlessChromium.find();
    if (chromium.isPresent()) {
      assertThat(chromium.get().layout(report, temp).problems()).isEmpty();
    }
  }
}
