package io.ccm4j.runtime.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** client-go's aggregation window: similar messages are counted within 10 minutes of the last. */
class EventCorrelatorTest {

  private static final ObjectReference NODE =
      new ObjectReferenceBuilder()
          .withApiVersion("v1")
          .withKind("Node")
          .withName("n")
          .withUid("u")
          .build();

  @Test
  void theTenthDifferentMessageWithinTenMinutesIsCombinedAndAQuietSpellStartsAgain() {
    AtomicLong now = new AtomicLong();
    EventCorrelator correlator = new EventCorrelator(now::get);
    for (int i = 1; i <= 9; i++) {
      EventCorrelator.Decision decision =
          correlator.correlate(NODE, "Warning", "FailedToCreateRoute", "after " + i + "ms");
      assertThat(decision.combined()).isFalse();
      assertThat(decision.message()).isEqualTo("after " + i + "ms");
      now.addAndGet(Duration.ofMinutes(9).toNanos()); // each within 10 min of the one before
    }
    EventCorrelator.Decision tenth =
        correlator.correlate(NODE, "Warning", "FailedToCreateRoute", "after 10ms");
    assertThat(tenth.combined()).isTrue();
    assertThat(tenth.message()).isEqualTo("(combined from similar events): after 10ms");
    // Another reason, or the same after more than 10 quiet minutes, counts on its own.
    assertThat(correlator.correlate(NODE, "Warning", "Other", "after 11ms").combined()).isFalse();
    now.addAndGet(Duration.ofMinutes(10).plusSeconds(1).toNanos());
    assertThat(
            correlator.correlate(NODE, "Warning", "FailedToCreateRoute", "after 12ms").combined())
        .isFalse();
  }
}
