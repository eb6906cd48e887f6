package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
  void threadsAreGroupedByNameWithoutTheirNumber() throws Exception {
    assertThat(ProcessStats.threadGroup("cloud-node-controller-worker-12"))
        .isEqualTo("cloud-node-controller-worker");
    assertThat(ProcessStats.threadGroup("C1 CompilerThre")).isEqualTo("C1 CompilerThre");
    assertThat(ProcessStats.threadGroup("GC Thread#3")).isEqualTo("GC Thread");
    assertThat(ProcessStats.threadGroup("42")).isEqualTo("42");

    CountDownLatch done = new CountDownLatch(1);
    List<Thread> live = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      live.add(Thread.ofPlatform().name("stats-live-" + i).start(() -> awaitQuietly(done)));
    }
    try {
      Map<String, Double> groups =
          ProcessStats.cpuSecondsByThreadGroup(ProcessHandle.current().pid());
      assertThat(groups).containsKey("stats-live").doesNotContainKey("stats-live-1");
      assertThat(List.copyOf(groups.values())).isSortedAccordingTo((a, b) -> Double.compare(b, a));
    } finally {
      done.countDown();
      for (Thread thread : live) {
        thread.join();
      }
    }
    assertThat(ProcessStats.cpuSecondsByThreadGroup(Long.MAX_VALUE)).isEmpty();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aGoneProcessHasNoPeakRss() {
    assertThat(ProcessStats.peakRssKiB(Long.MAX_VALUE)).isZero();
  }
}
