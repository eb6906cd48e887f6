package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StringPoolTest {

  @Test
  void equalStringsComeBackAsTheFirstInstance() {
    StringPool pool = new StringPool(8);
    String first = new String("topology.kubernetes.io/zone");
    String second = new String("topology.kubernetes.io/zone");

    assertThat(pool.pool(first)).isSameAs(first);
    assertThat(pool.pool(second)).isSameAs(first);
    assertThat(pool.size()).isEqualTo(1);
  }

  @Test
  void aFullPoolTakesNoMoreAndHandsBackWhatItIsGiven() {
    StringPool pool = new StringPool(2);
    String a = pool.pool(new String("a"));
    pool.pool(new String("b"));
    String c = new String("c");

    assertThat(pool.pool(c)).as("not pooled: the pool is full").isSameAs(c);
    assertThat(pool.pool(new String("c"))).isNotSameAs(c);
    assertThat(pool.pool(new String("a"))).as("what it holds, it still shares").isSameAs(a);
    assertThat(pool.size()).isEqualTo(2);
  }

  @Test
  void nullAndEmptyPassThrough() {
    StringPool pool = new StringPool(2);

    assertThat(pool.pool(null)).isNull();
    assertThat(pool.pool("")).isEmpty();
    assertThat(pool.size()).isZero();
  }
}
