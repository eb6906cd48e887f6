package io.ccm4j.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcessStatsTest {

  @Test
  void readsThisProcessAndNaNOrZeroForOneThatIsGone() {
    long pid = ProcessHandle.current().pid();

    assertThat(ProcessStats.cpuSeconds(pid)).isPositive();
    assertThat(ProcessStats.peakRssKiB(pid)).isGreaterThan(10_000);
    assertThat(ProcessStats.cpuSeconds(Long.MAX_VALUE)).isNaN();
  }

  @Test
  void aGoneProcessHasNoPeakRss() {
    assertThat(ProcessStats.peakRssKiB(Long.MAX_VALUE)).isZero();
  }
}
