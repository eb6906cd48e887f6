package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NodeLifecycleControllerTest {

  @Test
  void aCancelledDeletionLeavesTheEvictionTimersAtOnceNotAtItsDueTime() {
    ScheduledThreadPoolExecutor timers = NodeLifecycleController.evictionTimers();
    try {
      // A pod tolerating the taint for a day, whose node's taint was lifted: its deletion, and
      // the pod it holds, must not stay queued for the day.
      ScheduledFuture<?> deletion = timers.schedule(() -> {}, 1, TimeUnit.DAYS);

      deletion.cancel(false);

      assertThat(timers.getQueue()).isEmpty();
    } finally {
      timers.shutdownNow();
    }
  }
}
