package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LabelLayoutTest {

  /**
   * The first lab report squeezed every event into one column with overlapping labels. Six long
   * labels at almost the same moment, and some at the right edge: none overlaps another in its
   * lane, none leaves the chart.
   */
  @Test
  void labelsNeverOverlapNorRunOffTheChart() {
    List<LabelLayout.Label> labels = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      labels.add(
          new LabelLayout.Label(300 + i, "kubelet registered (uninitialized, network not ready)"));
    }
    labels.add(new LabelLayout.Label(1115, "initialised by the cloud-controller-manager"));
    labels.add(new LabelLayout.Label(1119, "Ready"));
    labels.add(new LabelLayout.Label(225, "x"));

    List<LabelLayout.Placed> placed = LabelLayout.place(labels, 220, 1120);

    assertThat(placed).hasSize(labels.size());
    assertThat(placed)
        .allSatisfy(
            p -> {
              assertThat(p.left()).isGreaterThanOrEqualTo(220);
              assertThat(p.right()).isLessThanOrEqualTo(1120);
            });
    for (int i = 0; i < placed.size(); i++) {
      for (int j = i + 1; j < placed.size(); j++) {
        LabelLayout.Placed a = placed.get(i);
        LabelLayout.Placed b = placed.get(j);
        if (a.lane() == b.lane()) {
          assertThat(a.right() <= b.left() || b.right() <= a.left())
              .as("labels %d and %d share lane %d without overlapping", i, j, a.lane())
              .isTrue();
        }
      }
    }
    assertThat(placed.get(6).right())
        .as("a label at the right edge goes to the left of its point")
        .isLessThanOrEqualTo(1115);
  }

  /** Setup before the manifests were applied shows at negative times; the verdict counts from 0. */
  @Test
  void theReportsClockStartsWhenTheManifestsAreApplied() throws Exception {
    Timeline timeline = new Timeline();
    timeline.record("control plane", "ready in 3.0 s");
    Thread.sleep(50);
    timeline.startBootstrap();
    timeline.record("manifests", "applied");

    List<Timeline.Entry> entries = timeline.entries();
    assertThat(entries.get(0).seconds()).isNegative();
    assertThat(entries.get(1).seconds()).isBetween(0.0, 1.0);
    assertThat(timeline.elapsedSeconds()).isLessThan(1.0);
  }
}
