package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.junit.jupiter.api.Test;

class PoolTest {

  private static final Function<String, String> ITSELF = text -> text;

  @Test
  void equalTextsComeBackAsTheFirstValue() {
    Pool<String> pool = new Pool<>(8);
    String first = new String("topology.kubernetes.io/zone");
    String second = new String("topology.kubernetes.io/zone");

    assertThat(pool.get(first, ITSELF)).isSameAs(first);
    assertThat(pool.get(second, ITSELF)).isSameAs(first);
    assertThat(pool.size()).isEqualTo(1);
  }

  @Test
  void aValueIsReadOnceForItsText() {
    Pool<StringBuilder> pool = new Pool<>(8);
    int[] reads = {0};
    Function<String, StringBuilder> read =
        text -> {
          reads[0]++;
          return new StringBuilder(text);
        };

    StringBuilder first = pool.get("8025288Ki", read);

    assertThat(pool.get("8025288Ki", read)).isSameAs(first);
    assertThat(reads[0]).isEqualTo(1);
  }

  @Test
  void aFullPoolTakesNoMoreAndHandsBackAValueOfItsOwn() {
    Pool<String> pool = new Pool<>(2);
    String a = pool.get(new String("a"), ITSELF);
    pool.get(new String("b"), ITSELF);
    String c = new String("c");

    assertThat(pool.get(c, ITSELF)).as("not pooled: the pool is full").isSameAs(c);
    assertThat(pool.get(new String("c"), ITSELF)).isNotSameAs(c);
    assertThat(pool.get(new String("a"), ITSELF)).as("what it holds, it still shares").isSameAs(a);
    assertThat(pool.size()).isEqualTo(2);
  }
}
