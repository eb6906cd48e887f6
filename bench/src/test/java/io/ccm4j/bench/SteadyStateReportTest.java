package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.SteadyStateFigures.Sample;
import io.ccm4j.bench.SteadyStateReport.Run;
import io.ccm4j.bench.SteadyStateReport.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The steady-state figures, table and JSON, from readings made up for the test. */
class SteadyStateReportTest {

  private static final Settings SETTINGS =
      new Settings(
          200,
          50,
          10,
          Duration.ofMillis(50),
          20,
          100,
          Duration.ofSeconds(30),
          Duration.ofSeconds(60),
          64,
          5000,
          "256m",
          Duration.ofMinutes(30),
          List.of(Peer.UPSTREAM_TUNED, Peer.CCM4J));

  private static final Run UPSTREAM =
      new Run(
          Peer.UPSTREAM_TUNED,
          12.5,
          60,
          400,
          150,
          Map.of("InstanceMetadata", 250L, "throttled", 150L),
          Map.of(),
          List.of(0.4, 0.5),
          20.0,
          5.0,
          5.0,
          3.0,
          "--concurrent-node-syncs=64");

  private static final Run CCM4J =
      new Run(
          Peer.CCM4J,
          2.0,
          60,
          2,
          0,
          Map.of("InstancesMetadata", 2L),
          Map.of(),
          List.of(0.1, 0.1),
          10.0,
          0.1,
          0.1,
          6.0,
          "-Xmx256m");

  @Test
  void ratesArePerNodeHourAndPerHour() {
    // 400 calls over 200 nodes in 60 s: 2 per node a minute, 120 per node-hour.
    assertThat(SteadyStateFigures.perNodeHour(400, 200, 60)).isCloseTo(120, within(1e-9));
    assertThat(SteadyStateFigures.perHour(3, 60)).isCloseTo(180, within(1e-9));
    assertThat(SteadyStateFigures.perNodeHour(1, 0, 60)).isNaN();
    assertThat(SteadyStateFigures.perHour(1, 0)).isNaN();
    assertThat(UPSTREAM.cloudCallsPerNodeHour(200)).isCloseTo(120, within(1e-9));
    assertThat(UPSTREAM.cpuSecondsPerHour()).isCloseTo(180, within(1e-9));
  }

  @Test
  void writesAreTheWriteVerbsThatMovedLeasesLeftOut() {
    Map<String, Double> before =
        Map.of("PATCH nodes/status", 5.0, "PUT leases", 10.0, "GET nodes", 1.0, "POST events", 2.0);
    Map<String, Double> after =
        Map.of(
            "PATCH nodes/status", 7.0,
            "PUT leases", 20.0,
            "GET nodes", 50.0,
            "POST events", 2.0,
            "DELETE nodes", 1.0);
    assertThat(SteadyStateFigures.writes(before, after))
        .isEqualTo(Map.of("PATCH nodes/status", 2.0, "DELETE nodes", 1.0));
  }

  @Test
  void receivedCallsCountTheThrottledOnesAndLoadBalancerUpdatesCountEveryShape() {
    Map<String, Long> calls =
        Map.of(
            "InstanceMetadata", 10L,
            "throttled", 5L,
            "injectedErrors", 3L,
            "UpdateLoadBalancer", 4L,
            "UpdateLoadBalancers", 1L,
            "EnsureLoadBalancer", 2L,
            "GetLoadBalancer", 7L);
    assertThat(SteadyStateFigures.received(calls)).isEqualTo(29);
    assertThat(SteadyStateFigures.throttled(calls)).isEqualTo(5);
    assertThat(SteadyStateFigures.loadBalancerUpdates(calls)).isEqualTo(7);
    assertThat(SteadyStateFigures.delta(Map.of("a", 1L, "b", 2L), Map.of("a", 1L, "b", 5L)))
        .isEqualTo(Map.of("b", 3L));
  }

  @Test
  void passesAreRunsOfMovingSamplesSeparatedByQuiet() {
    long ms = 1_000_000;
    List<Sample> samples = new ArrayList<>();
    long[] counts = {
      // moving from the first sample: a pass already running, left out
      0,
      5,
      5,
      5,
      5,
      5,
      // a pass: moves from 300 ms to 400 ms after the sample at 250 ms
      10,
      20,
      20,
      20,
      20,
      20,
      20,
      // another: one move
      21,
      21,
      21,
      21,
      21,
      // still moving at the end: left out
      30
    };
    for (int i = 0; i < counts.length; i++) {
      samples.add(new Sample(i * 50 * ms, counts[i]));
    }
    assertThat(SteadyStateFigures.passSeconds(samples, 200 * ms)).containsExactly(0.1, 0.05);
    assertThat(SteadyStateFigures.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(SteadyStateFigures.median(List.of())).isNaN();
  }

  @Test
  void theTableNamesTheFiguresAndTheTargets() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SteadyStateReport.print(
        SETTINGS,
        "v1.37.2",
        List.of(UPSTREAM, CCM4J),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertThat(table)
        .contains("| cloud calls per node-hour, idle (throttled incl.)")
        .contains("upstream-tuned", "ccm4j")
        .contains("120.00", "0.60")
        .contains("ccm4j cloud calls per node-hour <= 1 % of the tuned upstream CCM's")
        .containsPattern("1 % of the tuned upstream CCM's\\s+met\\s+0\\.50 %")
        .containsPattern("throttled calls 0 .*\\s+met\\s+0 against 150")
        .containsPattern("address-sync pass over 200 nodes <= 10 s\\s+met\\s+0\\.10 s")
        .containsPattern("while nothing changes = 0\\s+met\\s+0");
  }

  @Test
  void theJsonHasAnObjectPerPeerUnderTheNamedKeys() throws Exception {
    Run missing =
        new Run(
            Peer.CCM4J,
            2,
            60,
            2,
            0,
            Map.of(),
            Map.of("PATCH nodes/status", 1.0),
            List.of(),
            Double.NaN,
            0,
            0,
            1,
            "");
    JsonNode json =
        new ObjectMapper()
            .readTree(SteadyStateReport.toJson(SETTINGS, "v1.37.2", List.of(UPSTREAM, missing)));
    assertThat(json.path("benchmark").asText()).isEqualTo("steady-state");
    assertThat(json.path("settings").path("addressSyncPeriodSeconds").asLong()).isEqualTo(30);
    JsonNode upstream = json.path("peers").path("upstream-tuned");
    assertThat(upstream.path("cloudCallsPerNodeHour").asDouble()).isCloseTo(120, within(1e-9));
    assertThat(upstream.path("throttledCalls").asLong()).isEqualTo(150);
    assertThat(upstream.path("idleApiWritesPerHour").asDouble()).isZero();
    // The median by nearest rank: the lower of two.
    assertThat(upstream.path("addressSyncPassSeconds").asDouble()).isCloseTo(0.4, within(1e-9));
    JsonNode ccm4j = json.path("peers").path("ccm4j");
    assertThat(ccm4j.path("idleApiWritesPerHour").asDouble()).isCloseTo(60, within(1e-9));
    assertThat(ccm4j.path("addressSyncPassSeconds").isNull()).isTrue();
    assertThat(ccm4j.path("addressChangeToNodeSeconds").isNull()).isTrue();
  }
}
