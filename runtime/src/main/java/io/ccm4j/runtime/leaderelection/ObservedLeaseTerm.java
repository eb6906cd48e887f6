package io.ccm4j.runtime.leaderelection;

import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * When another holder's term ends, judged as client-go judges it: a lease duration after this
 * instance OBSERVED the record change ({@code observedTime + leaseDuration}), on its own monotonic
 * clock, never by comparing the holder's {@code renewTime} with this instance's wall clock (which
 * fabric8's elector does: a standby whose clock runs ahead, or a holder whose clock lags, would
 * take a Lease that is still being renewed). Fed by the elector's reads and the Lease watch alike:
 * the first sighting of a record counts.
 */
final class ObservedLeaseTerm {

  /** What identifies one written record: any renewal changes it. */
  record Key(
      String holder, Instant acquireTime, Instant renewTime, long leaseSeconds, int transitions) {

    static Key of(LeaderElectionRecord record) {
      return new Key(
          Objects.requireNonNullElse(record.getHolderIdentity(), ""),
          record.getAcquireTime().toInstant(),
          record.getRenewTime().toInstant(),
          record.getLeaseDuration().toSeconds(),
          record.getLeaderTransitions());
    }
  }

  private final LongSupplier nanoTime;
  private final Supplier<Instant> wallClock;
  private Key seen;
  private long seenAt;

  ObservedLeaseTerm(LongSupplier nanoTime, Supplier<Instant> wallClock) {
    this.nanoTime = nanoTime;
    this.wallClock = wallClock;
  }

  /** Notes the record; returns the monotonic time ({@code nanoTime}) it was first seen at. */
  synchronized long observe(Key key) {
    if (!key.equals(seen)) {
      seen = key;
      seenAt = nanoTime.getAsLong();
    }
    return seenAt;
  }

  /**
   * How long until the observed holder's term ends: zero when the record names no holder or its
   * lease duration has passed since it was observed.
   */
  synchronized Duration untilTermEnds(Key key) {
    long observedAt = observe(key);
    if (key.holder().isEmpty()) {
      return Duration.ZERO;
    }
    long left =
        observedAt + Duration.ofSeconds(key.leaseSeconds()).toNanos() - nanoTime.getAsLong();
    return Duration.ofNanos(Math.max(0, left));
  }

  /**
   * The record as fabric8's elector should see it: its renew time moved to the moment this instance
   * observed it (on this instance's wall clock), so that the elector's expiry check ({@code now >
   * renewTime + leaseDuration}) measures the time since the observation. The renew time is only
   * read there: the elector writes a record of its own when it acquires.
   */
  LeaderElectionRecord asObserved(LeaderElectionRecord record) {
    Key key = Key.of(record);
    long observedAt = observe(key);
    Instant observedWall = wallClock.get().minusNanos(nanoTime.getAsLong() - observedAt);
    return new LeaderElectionRecord(
        record.getHolderIdentity(),
        record.getLeaseDuration(),
        record.getAcquireTime(),
        ZonedDateTime.ofInstant(observedWall, ZoneOffset.UTC),
        record.getLeaderTransitions());
  }
}
