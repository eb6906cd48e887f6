package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.NodeInitBenchmark.Result;
import io.ccm4j.bench.NodeInitBenchmark.Run;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The side-by-side table of medians and its JSON, from figures made up for the test. */
class NodeInitBenchmarkTest {

  private static final List<Peer> PEERS = List.of(Peer.GO_FLOOR, Peer.UPSTREAM_TUNED, Peer.CCM4J);

  private static Run run(Peer peer, int round, double wall, double cpu, double apiServer) {
    boolean manager = !peer.isFloor();
    return new Run(
        peer,
        round,
        1000,
        wall,
        wall / 2,
        wall,
        cpu,
        apiServer,
        apiServer / 2,
        peer == Peer.CCM4J ? 230 : 70,
        peer == Peer.CCM4J ? 80 : Double.NaN,
        3,
        1,
        Map.of("PUT nodes", 1.0, "POST events", peer == Peer.CCM4J ? 0.25 + round : 0.5),
        manager ? 1 : Double.NaN,
        peer == Peer.CCM4J ? 1.8 : 0.3,
        "note of " + peer.id() + " run " + round);
  }

  private static final Result RESULT =
      new Result(
          new NodeInitBenchmark.Settings(
              1000,
              Duration.ofMillis(50),
              0,
              64,
              5000,
              "256m",
              List.of("-XX:+UseSerialGC"),
              List.of(),
              Duration.ofMinutes(15),
              PEERS,
              false,
              3),
          "v1.37.2",
          List.of(
              run(Peer.GO_FLOOR, 0, 4.0, 0.7, 3.0),
              run(Peer.UPSTREAM_TUNED, 0, 8.0, 1.5, 6.0),
              run(Peer.CCM4J, 0, 10.0, 5.0, 9.0),
              run(Peer.UPSTREAM_TUNED, 1, 9.0, 1.7, 6.5),
              run(Peer.CCM4J, 1, 30.0, 6.0, 8.0),
              run(Peer.GO_FLOOR, 1, 5.0, 0.9, 3.5),
              run(Peer.CCM4J, 2, 11.0, 4.0, 10.0),
              run(Peer.GO_FLOOR, 2, 3.0, 0.8, 2.5),
              run(Peer.UPSTREAM_TUNED, 2, 7.0, 1.6, 5.5)));

  @Test
  void theTableHasAColumnPerPeerWithTheMediansOfItsRunsAndTargetsNamedByFigure() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RESULT.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);

    assertThat(table)
        .contains("median of 3 runs")
        .contains("|           go-floor |     upstream-tuned |              ccm4j |")
        // ccm4j's walls 10, 30, 11: the median is 11 (an outlier does not move it), the floor's 4
        .containsPattern(
            "\\| wall, first registration to last untaint \\(s\\) +\\| +4\\.00 \\| +8\\.00 \\| +11\\.00 \\|")
        .containsPattern("\\| wall / Go floor +\\| +1\\.00 \\| +2\\.00 \\| +2\\.75 \\|")
        .containsPattern("\\| CPU per node \\(ms\\) +\\| +0\\.80 \\| +1\\.60 \\| +5\\.00 \\|")
        .containsPattern(
            "\\| CPU of the API server, same run \\(s\\) +\\| +3\\.0 \\| +6\\.0 \\| +9\\.0 \\|")
        .containsPattern("\\| CPU of etcd, same run \\(s\\) +\\| +1\\.5 \\| +3\\.0 \\| +4\\.5 \\|")
        .containsPattern("\\| cloud calls per node +\\| +- \\|")
        // ccm4j's events per node 0.25, 1.25, 2.25: each kind's median, then their sum
        .containsPattern(
            "\\| API requests per node, all kinds +\\| +1\\.50 \\| +1\\.50 \\| +2\\.25 \\|")
        .contains("  ccm4j: POST events 1.25, PUT nodes 1.00\n")
        .contains("  upstream-tuned: PUT nodes 1.00, POST events 0.50\n")
        .containsPattern("wall: ccm4j <= upstream CCM tuned +MISSED 11\\.00 s against 8\\.00 s")
        .containsPattern("CPU per node: ccm4j <= upstream CCM tuned +MISSED")
        .containsPattern("peak RSS: ccm4j <= upstream CCM tuned +MISSED 230 MiB against 70 MiB")
        .containsPattern(
            "API server CPU: in ccm4j's run <= in upstream's +MISSED 9\\.0 s against 6\\.0 s")
        .contains("peak RSS: ccm4j <= 100 MiB at up to 1,000 nodes")
        .containsPattern("start to first node: ccm4j <= 0\\.5 s +MISSED 1\\.80 s")
        .doesNotContainPattern("(?i)issue|#\\d");
  }

  @Test
  void theJsonHasEachPeersMediansUnderTheirNamesAndEveryRun() throws Exception {
    JsonNode json = new ObjectMapper().readTree(RESULT.toJson());

    assertThat(json.path("kubernetesVersion").asText()).isEqualTo("v1.37.2");
    assertThat(json.path("settings").path("runs").asInt()).isEqualTo(3);
    assertThat(json.path("settings").path("jvmOptions").get(0).asText())
        .isEqualTo("-XX:+UseSerialGC");
    JsonNode ccm4j = json.path("peers").path("ccm4j");
    assertThat(ccm4j.path("runs").asInt()).isEqualTo(3);
    JsonNode median = ccm4j.path("median");
    assertThat(median.path("wallSeconds").asDouble()).isEqualTo(11.0);
    assertThat(median.path("cpuMsPerNode").asDouble()).isEqualTo(5.0);
    assertThat(median.path("peakRssMiB").asDouble()).isEqualTo(230.0);
    assertThat(median.path("startToFirstNodeSeconds").asDouble()).isEqualTo(1.8);
    assertThat(median.path("apiServerCpuSeconds").asDouble()).isEqualTo(9.0);
    assertThat(median.path("apiRequestsPerNode").asDouble()).isEqualTo(2.25);
    assertThat(median.path("apiRequestsPerNodeByKind").path("POST events").asDouble())
        .isEqualTo(1.25);
    assertThat(
            json.path("peers").path("go-floor").path("median").path("cloudCallsPerNode").isNull())
        .isTrue();
    assertThat(json.path("runs")).hasSize(9);
    JsonNode first = json.path("runs").get(0);
    assertThat(first.path("peer").asText()).isEqualTo("go-floor");
    assertThat(first.path("run").asInt()).isEqualTo(1);
    assertThat(first.path("apiServerCpuSeconds").asDouble()).isEqualTo(3.0);
    assertThat(first.path("apiRequestsPerNodeByKind").path("PUT nodes").asDouble()).isEqualTo(1.0);
  }
}
