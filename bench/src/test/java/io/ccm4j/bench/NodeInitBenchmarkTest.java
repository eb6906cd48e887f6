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
import org.junit.jupiter.api.Test;

/** The side-by-side table and its JSON, from figures made up for the test. */
class NodeInitBenchmarkTest {

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
              Duration.ofMinutes(15),
              List.of(Peer.GO_FLOOR, Peer.UPSTREAM_TUNED, Peer.CCM4J),
              false),
          "v1.37.2",
          List.of(
              new Run(
                  Peer.GO_FLOOR,
                  1000,
                  4.0,
                  Double.NaN,
                  Double.NaN,
                  0.7,
                  30,
                  Double.NaN,
                  3,
                  1,
                  Double.NaN,
                  Double.NaN,
                  "its own 1000 registrations included"),
              new Run(
                  Peer.UPSTREAM_TUNED,
                  1000,
                  8.0,
                  3.0,
                  5.0,
                  1.5,
                  70,
                  Double.NaN,
                  3,
                  1,
                  1,
                  0.3,
                  "--concurrent-node-syncs=64"),
              new Run(
                  Peer.CCM4J,
                  1000,
                  10.0,
                  4.0,
                  7.0,
                  5.0,
                  230,
                  80,
                  3,
                  1,
                  1,
                  1.8,
                  "-Xmx256m -XX:+UseSerialGC")));

  @Test
  void theTableHasAColumnPerPeerRatiosToTheFloorAndTheTargets() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RESULT.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);

    assertThat(table)
        .contains("|         go-floor |   upstream-tuned |            ccm4j |")
        .containsPattern("\\| wall / Go floor +\\| +1\\.00 \\| +2\\.00 \\| +2\\.50 \\|")
        .containsPattern("\\| CPU per node \\(ms\\) +\\| +0\\.70 \\| +1\\.50 \\| +5\\.00 \\|")
        .containsPattern("\\| cloud calls per node +\\| +- \\|")
        .contains("ccm4j wall <= 1.5 x the Go floor", "MISSED 2.50 x")
        .contains("ccm4j CPU per node <= the tuned upstream CCM's")
        .contains("ccm4j peak RSS <= 160 MiB")
        .containsPattern("start to first node initialised <= 2 s +met +1\\.80 s");
  }

  @Test
  void theJsonHasEveryRunWithNullForFiguresAPeerDoesNotHave() throws Exception {
    JsonNode json = new ObjectMapper().readTree(RESULT.toJson());

    assertThat(json.path("kubernetesVersion").asText()).isEqualTo("v1.37.2");
    assertThat(json.path("settings").path("jvmOptions").get(0).asText())
        .isEqualTo("-XX:+UseSerialGC");
    assertThat(json.path("runs")).hasSize(3);
    JsonNode floor = json.path("runs").get(0);
    assertThat(floor.path("peer").asText()).isEqualTo("go-floor");
    assertThat(floor.path("cloudCallsPerNode").isNull()).isTrue();
    JsonNode ccm4j = json.path("runs").get(2);
    assertThat(ccm4j.path("ratioToFloor").asDouble()).isEqualTo(2.5);
    assertThat(ccm4j.path("cpuMillisPerNode").asDouble()).isEqualTo(5.0);
  }
}
