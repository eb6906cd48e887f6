package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's timeline as a real browser lays it out — no label overlaps another or leaves the
 * chart, and no subject runs into the timeline — on a crowded bootstrap: long pod names, bursts of
 * moments a few milliseconds apart, moments at the chart's right edge. {@link LabelLayoutTest}
 * checks the placement rule itself without a browser; {@code LabIT} puts every scenario's real
 * report through the same browser check.
 */
class LabReportLayoutIT {

  @TempDir Path temp;

  @Test
  void aCrowdedTimelineRendersWithoutOverlapsInChromium() throws Exception {
    Optional<HeadlessChromium> chromium = HeadlessChromium.find();
    assumeTrue(chromium.isPresent(), "no Chromium on this machine (scripts/test installs it)");
    Timeline timeline = new Timeline();
    for (int i = 0; i < 6; i++) {
      timeline.record("worker-" + i, "kubelet registered (uninitialized, network not ready)");
    }
    timeline.startBootstrap();
    List<String> pods =
        List.of(
            "cloud-controller-manager-cb6d8c758-wngc5",
            "cloud-controller-manager-cb6d8c758-ck28v",
            "kube-system/a-very-long-daemonset-name-of-some-vendor-ccm-x7k2p");
    for (int burst = 0; burst < 4; burst++) {
      for (String pod : pods) {
        timeline.record(pod, "bound to worker-%d, waiting for the pod network".formatted(burst));
        timeline.record(
            pod, "ccm4j manager started on worker-%d (no leader election)".formatted(burst));
        timeline.record(pod, "leads");
      }
      for (int i = 0; i < 6; i++) {
        timeline.record("worker-" + i, "CNI pod running");
        timeline.record("worker-" + i, "network ready (CNI has the node address); kubelet Ready");
        timeline.record("worker-" + i, "initialised by the CCM (sim://worker-%d)".formatted(i));
      }
      Thread.sleep(150);
    }
    timeline.record(
        pods.getFirst(),
        "pending: the scheduler says: 0/6 nodes are available: 6 node(s) had untolerated taint(s)."
            + " preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling."
            + " And a little more, so that this label is longer than the chart is wide.".repeat(6));
    timeline.record("verdict", "bootstrapped");
    timeline.record("traffic", "Service default/lab-web of type LoadBalancer created");
    timeline.record("traffic", "load balancer 127.200.100.1 provisioned by the CCM");
    timeline.record("traffic", "answered by node worker-0");
    LabResult result =
        new LabResult(
            "crowded",
            LabResult.BOOTSTRAPPED,
            timeline.elapsedSeconds(),
            List.of(),
            timeline,
            Optional.of(new LabResult.Traffic(true, "GET http://127.200.100.1/ was answered")));

    HeadlessChromium.Layout layout = chromium.get().layout(LabReport.html(result), temp);

    assertThat(layout.texts()).isGreaterThan(timeline.entries().size());
    assertThat(layout.problems()).isEmpty();
  }
}
