package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.bench.NodeInitBenchmark.Peer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order of the peers run after run, the medians, and when the API server is quiet. */
class NodeInitRunsTest {

  @Test
  void eachRunStartsWithTheNextPeerSoNoneAlwaysRunsFirst() {
    List<Peer> peers = List.of(Peer.GO_FLOOR, Peer.UPSTREAM_TUNED, Peer.CCM4J);

    assertThat(NodeInitRuns.order(peers, 0)).isEqualTo(peers);
    assertThat(NodeInitRuns.order(peers, 1))
        .containsExactly(Peer.UPSTREAM_TUNED, Peer.CCM4J, Peer.GO_FLOOR);
    assertThat(NodeInitRuns.order(peers, 2))
        .containsExactly(Peer.CCM4J, Peer.GO_FLOOR, Peer.UPSTREAM_TUNED);
    assertThat(NodeInitRuns.order(peers, 3)).isEqualTo(peers);
    assertThat(NodeInitRuns.order(List.of(Peer.UPSTREAM_TUNED, Peer.CCM4J), 1))
        .containsExactly(Peer.CCM4J, Peer.UPSTREAM_TUNED);
  }

  @Test
  void theMedianIsTheMiddleFigureOrTheMeanOfTheMiddleTwoWithoutMissingOnes() {
    assertThat(NodeInitRuns.median(3.0, 1.0, 2.0)).isEqualTo(2.0);
    assertThat(NodeInitRuns.median(4.0, 1.0, 3.0, 100.0)).isEqualTo(3.5);
    assertThat(NodeInitRuns.median(5.0)).isEqualTo(5.0);
    assertThat(NodeInitRuns.median(Double.NaN, 7.0, 1.0)).isEqualTo(4.0);
    assertThat(NodeInitRuns.median(Double.NaN)).isNaN();
    assertThat(NodeInitRuns.median()).isNaN();
  }

  @Test
  void theApiServerIsQuietOnceItsWriteTotalHoldsForEnoughReadings() {
    assertThat(NodeInitLoad.quiet(List.of(5.0, 5.0, 5.0), 4)).isFalse();
    assertThat(NodeInitLoad.quiet(List.of(1.0, 5.0, 5.0, 5.0, 5.0), 4)).isTrue();
    assertThat(NodeInitLoad.quiet(List.of(5.0, 5.0, 5.0, 6.0), 4)).isFalse();
    assertThat(NodeInitLoad.quiet(List.of(5.0, 5.0, 6.0, 6.0, 6.0), 4)).isFalse();
  }
}
