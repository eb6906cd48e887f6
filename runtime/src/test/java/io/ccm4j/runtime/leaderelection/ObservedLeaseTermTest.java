package io.ccm4j.runtime.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ObservedLeaseTermTest {

  private static final Instant WALL = Instant.parse("2026-11-26T12:00:00Z");

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ObservedLeaseTerm term =
      new ObservedLeaseTerm(nanos::get, () -> WALL.plusNanos(nanos.get()));

  private static LeaderElectionRecord record(String holder, Instant renewed) {
    ZonedDateTime time = ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC);
    return new LeaderElectionRecord(holder, Duration.ofSeconds(15), time, time, 3);
  }

  private void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }

  @Test
  void aRecordWhoseRenewTimeLiesAnHourBackIsValidForALeaseDurationFromItsObservation() {
    // The holder's clock lags an hour (or this instance's runs ahead): by the wall clocks the term
    // ended long ago, yet the holder renews on time.
    var key = ObservedLeaseTerm.Key.of(record("other", WALL.minus(Duration.ofHours(1))));

    assertThat(term.untilTermEnds(key)).isEqualTo(Duration.ofSeconds(15));
    advance(Duration.ofSeconds(14));
    assertThat(term.untilTermEnds(key)).isEqualTo(Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));
    assertThat(term.untilTermEnds(key)).isZero();
  }

  @Test
  void aRenewalStartsTheTermAgainFromWhenItIsSeen() {
    var first = ObservedLeaseTerm.Key.of(record("other", WALL));
    term.untilTermEnds(first);
    advance(Duration.ofSeconds(10));

    var renewed = ObservedLeaseTerm.Key.of(record("other", WALL.plusSeconds(10)));

    assertThat(term.untilTermEnds(renewed)).isEqualTo(Duration.ofSeconds(15));
    advance(Duration.ofSeconds(2));
    assertThat(term.untilTermEnds(renewed)).isEqualTo(Duration.ofSeconds(13));
  }

  @Test
  void aRecordWhoseRenewTimeLiesAheadEndsALeaseDurationAfterItsObservationToo() {
    var key = ObservedLeaseTerm.Key.of(record("other", WALL.plus(Duration.ofHours(1))));

    term.untilTermEnds(key);
    advance(Duration.ofSeconds(16));

    assertThat(term.untilTermEnds(key)).isZero();
  }

  @Test
  void aRecordWithoutHolderIsFreeAtOnce() {
    assertThat(term.untilTermEnds(ObservedLeaseTerm.Key.of(record(null, WALL)))).isZero();
  }

  @Test
  void theElectorSeesTheRenewTimeAsTheMomentOfObservationOnItsOwnWallClock() {
    LeaderElectionRecord stale = record("other", WALL.minus(Duration.ofHours(1)));
    term.asObserved(stale);
    advance(Duration.ofSeconds(5));

    LeaderElectionRecord seen = term.asObserved(stale);

    // fabric8's check, now > renewTime + leaseDuration, then measures 5 s of 15.
    Instant now = WALL.plusNanos(nanos.get());
    assertThat(Duration.between(seen.getRenewTime().toInstant(), now))
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(seen.getHolderIdentity()).isEqualTo("other");
    assertThat(seen.getAcquireTime()).isEqualTo(stale.getAcquireTime());
    assertThat(seen.getLeaderTransitions()).isEqualTo(3);
  }
}
