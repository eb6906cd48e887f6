package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The writes of the EndpointSlice controller its informer has not shown yet: a pass over a cache
 * that misses one would create a second slice, or update from an old version and meet a conflict.
 */
class WrittenEndpointSlicesTest {

  private final AtomicLong now = new AtomicLong();
  private final WrittenEndpointSlices written =
      new WrittenEndpointSlices(Duration.ofSeconds(30), now::get);

  private static EndpointSlice slice(String uid, String resourceVersion, long generation) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withName("a1-" + uid)
        .withUid(uid)
        .withResourceVersion(resourceVersion)
        .withGeneration(generation)
        .endMetadata()
        .withAddressType("IPv4")
        .build();
  }

  @Test
  void aCreatedSliceTheCacheDoesNotShowYetMakesItStale() {
    written.written("a1", slice("u1", "10", 1));
    assertThat(written.stale("a1", List.of())).isTrue();
    assertThat(written.stale("a2", List.of())).as("another Service's write").isFalse();
    assertThat(written.stale("a1", List.of(slice("u1", "10", 1)))).isFalse();
  }

  @Test
  void anUpdatedSliceIsStaleUntilTheCacheHasThatVersionOrALaterSpec() {
    written.written("a1", slice("u1", "12", 2));
    assertThat(written.stale("a1", List.of(slice("u1", "10", 1)))).isTrue();
    // A label-only write keeps the generation: the version tells.
    written.written("a1", slice("u1", "13", 2));
    assertThat(written.stale("a1", List.of(slice("u1", "12", 2)))).isTrue();
    assertThat(written.stale("a1", List.of(slice("u1", "13", 2)))).isFalse();
    // Someone else's later write of the endpoints.
    assertThat(written.stale("a1", List.of(slice("u1", "15", 3)))).isFalse();
  }

  @Test
  void theInformerShowingTheWriteEndsTheWaitWhateverComesAfter() {
    written.written("a1", slice("u1", "12", 2));
    written.observed(slice("u1", "12", 2), false);
    // Someone else's label-only write after it: no longer ours to wait for.
    assertThat(written.stale("a1", List.of(slice("u1", "14", 2)))).isFalse();
  }

  @Test
  void aDeletedSliceIsStaleWhileTheCacheStillHasIt() {
    EndpointSlice slice = slice("u1", "12", 2);
    written.deleted("a1", slice);
    assertThat(written.stale("a1", List.of(slice))).isTrue();
    assertThat(written.stale("a1", List.of())).isFalse();
    written.observed(slice, false);
    assertThat(written.stale("a1", List.of(slice))).as("an update is not the deletion").isTrue();
    written.observed(slice, true);
    assertThat(written.stale("a1", List.of(slice))).isFalse();
  }

  @Test
  void aWriteTheInformerNeverShowsStopsCountingAfterThePatience() {
    written.written("a1", slice("u1", "12", 2));
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    assertThat(written.stale("a1", List.of())).isTrue();
    now.addAndGet(1);
    assertThat(written.stale("a1", List.of())).isFalse();
  }

  @Test
  void aConflictWithinThePatienceOfItsOwnWriteIsItsOwn() {
    written.written("a1", slice("u1", "12", 2));
    written.observed(slice("u1", "12", 2), false);
    assertThat(written.recentlyWritten("u1")).isTrue();
    assertThat(written.recentlyWritten("u2")).isFalse();
    now.addAndGet(Duration.ofSeconds(31).toNanos());
    assertThat(written.recentlyWritten("u1")).isFalse();
  }
}
