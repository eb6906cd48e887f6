package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
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
    // A label-only write raises the generation too (the API server's EndpointSlice strategy;
    // KubeVirtEndpointSlicesIT checks it).
    written.written("a1", slice("u1", "13", 3));
    assertThat(written.stale("a1", List.of(slice("u1", "12", 2)))).isTrue();
    assertThat(written.stale("a1", List.of(slice("u1", "13", 3)))).isFalse();
    // Someone else's later write of the endpoints.
    assertThat(written.stale("a1", List.of(slice("u1", "15", 4)))).isFalse();
  }

  /**
   * The informer may show a write before the API server's answer to it is read: then it is not
   * marked shown, and a later write of someone else's that changes only annotations (the same
   * generation, another version) made the Service wait the whole patience, 30 s, at every pass.
   */
  @Test
  void aLaterAnnotationOnlyWriteOfSomeoneElseShowsTheWriteToo() {
    written.observed(slice("u1", "12", 2), false); // the watch event came first
    written.written("a1", slice("u1", "12", 2));
    assertThat(written.stale("a1", List.of(slice("u1", "14", 2)))).isFalse();
    assertThat(written.stale("a1", List.of(slice("u1", "11", 1)))).isTrue();
  }

  /**
   * A slice with a finalizer stays after the delete, with a deletion timestamp, until the finalizer
   * goes, which may be never: the delete is shown, or every pass of its Service waited 30 s.
   */
  @Test
  void aDeletedSliceAFinalizerKeepsShowsTheDelete() {
    EndpointSlice slice = slice("u1", "12", 2);
    written.deleted("a1", slice);
    EndpointSlice pending =
        new EndpointSliceBuilder(slice("u1", "13", 2))
            .editMetadata()
            .withDeletionTimestamp("2026-11-28T01:00:00Z")
            .withFinalizers("example.com/hold")
            .endMetadata()
            .build();
    assertThat(written.stale("a1", List.of(pending))).isFalse();
    written.deleted("a1", slice);
    written.observed(pending, false);
    assertThat(written.stale("a1", List.of(slice))).as("shown, whatever comes after").isFalse();
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

  /**
   * K75: a created slice deleted before the informer's watch delivered it (a relist past both) is
   * never shown, nor is its deletion: only the API server can say it is gone. The writes the cache
   * does not hold at all, once they are older than the informer's usual delay, are the ones to ask
   * about; forgetting those the server no longer has ends the wait, which took the whole patience.
   */
  @Test
  void aWriteTheCacheNeverHeldIsAskedAboutAndForgottenWhenTheServerHasNoSuchSlice() {
    Duration age = Duration.ofSeconds(1);
    written.written("a1", slice("u1", "12", 1)); // created, never shown
    written.written("a1", slice("u2", "14", 3)); // updated, the cache has an older version
    written.written("a2", slice("u3", "15", 1)); // another Service's
    written.deleted("a1", slice("u4", "16", 1));
    List<EndpointSlice> cached = List.of(slice("u2", "13", 2), slice("u4", "16", 1));
    assertThat(written.unseenSince("a1", cached, age)).as("within the usual delay").isEmpty();

    now.addAndGet(age.toNanos());
    assertThat(written.unseenSince("a1", cached, age)).containsExactly("u1");
    List<EndpointSlice> caughtUp = List.of(slice("u2", "14", 3));
    assertThat(written.stale("a1", caughtUp)).as("the lost create holds the Service").isTrue();
    written.forget(Set.of("u1"));
    assertThat(written.unseenSince("a1", cached, age)).isEmpty();
    assertThat(written.stale("a1", caughtUp)).isFalse();
    assertThat(written.stale("a1", cached))
        .as("an update the cache holds at an older version, and a deletion, are still waited for")
        .isTrue();
    assertThat(written.stale("a2", List.of())).as("another Service's write stays").isTrue();
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
