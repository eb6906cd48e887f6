package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackendPoolTest {

  private static BackendPool.Target target(int i) throws Exception {
    return new BackendPool.Target("n" + i, InetAddress.getByName("127.0.50." + i));
  }

  private static void allHealthy(BackendPool pool) {
    pool.all().forEach(b -> b.recordProbe(true, 1, 1));
    pool.refresh();
  }

  @Test
  void roundRobinOverServingBackendsOnly() throws Exception {
    BackendPool pool = new BackendPool(LocalCloudSettings.Balancing.ROUND_ROBIN);
    List<Backend> added = pool.setMembers(List.of(target(1), target(2), target(3)));
    assertThat(added).hasSize(3);
    assertThat(pool.pick(List.of())).as("not probed yet: not serving").isNull();
    allHealthy(pool);
    added.get(1).recordProbe(false, 1, 1);
    pool.refresh();

    List<String> picked = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      picked.add(pool.pick(List.of()).nodeName);
    }
    assertThat(picked).containsOnly("n1", "n3");
    assertThat(picked.stream().filter("n1"::equals).count()).isEqualTo(3);
    assertThat(pool.pick(List.of(added.get(0))).nodeName).isEqualTo("n3");
  }

  @Test
  void leastConnectionsPrefersTheIdlestAndFormerMembersDrain() throws Exception {
    BackendPool pool = new BackendPool(LocalCloudSettings.Balancing.LEAST_CONNECTIONS);
    List<Backend> added = pool.setMembers(List.of(target(1), target(2)));
    allHealthy(pool);
    added.get(0).active.set(5);
    assertThat(pool.pick(List.of()).nodeName).isEqualTo("n2");

    assertThat(pool.setMembers(List.of(target(2)))).isEmpty();
    Backend leaving = added.get(0);
    assertThat(leaving.serving()).isFalse();
    assertThat(leaving.notServingSince()).isPositive();
    pool.prune();
    assertThat(pool.all()).as("kept while it has connections").contains(leaving);
    leaving.active.set(0);
    pool.prune();
    assertThat(pool.all()).extracting(b -> b.nodeName).containsExactly("n2");
  }

  @Test
  void aFormerMemberThatRejoinsServesOnlyAfterANewProbe() throws Exception {
    BackendPool pool = new BackendPool(LocalCloudSettings.Balancing.ROUND_ROBIN);
    Backend node = pool.setMembers(List.of(target(1))).get(0);
    allHealthy(pool);
    node.active.set(1); // a connection keeps it while it drains
    pool.setMembers(List.of());
    assertThat(pool.pick(List.of())).isNull();

    assertThat(pool.setMembers(List.of(target(1))))
        .as("probed again before traffic")
        .containsExactly(node);
    assertThat(node.serving()).isFalse();
    assertThat(pool.pick(List.of())).isNull();
    node.recordProbe(true, 3, 3); // the first result decides, as for a new backend
    pool.refresh();
    assertThat(pool.pick(List.of())).isSameAs(node);
  }

  @Test
  void healthThresholdsNeedConsecutiveResults() throws Exception {
    Backend b = new Backend("n1", InetAddress.getByName("127.0.50.1"));
    assertThat(b.recordProbe(true, 2, 2)).as("the first result decides").isTrue();
    assertThat(b.recordProbe(false, 2, 2)).isFalse();
    assertThat(b.healthy()).isTrue();
    assertThat(b.recordProbe(false, 2, 2)).isTrue();
    assertThat(b.healthy()).isFalse();
    assertThat(b.recordProbe(true, 2, 2)).isFalse();
    assertThat(b.recordProbe(true, 2, 2)).isTrue();
    assertThat(b.serving()).isTrue();
    assertThat(b.notServingSince()).isZero();
  }
}
