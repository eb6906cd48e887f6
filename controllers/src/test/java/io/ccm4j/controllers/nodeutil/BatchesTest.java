package io.ccm4j.controllers.nodeutil;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BatchesTest {

  @ParameterizedTest(name = "{0} items in batches of {1}: {2} batches, the last of {3}")
  @CsvSource({
    "0, 1000, 0, 0",
    "1, 1000, 1, 1",
    "2500, 1000, 3, 500",
    "3000, 1000, 3, 1000",
    "3, 1, 3, 1",
    "3, 0, 3, 1"
  })
  void splitsInOrder(int items, int size, int batches, int last) {
    List<Integer> all = IntStream.range(0, items).boxed().toList();

    List<List<Integer>> split = Batches.of(all, size);

    assertThat(split).hasSize(batches);
    if (batches > 0) {
      assertThat(split.get(batches - 1)).hasSize(last);
    }
    assertThat(split.stream().flatMap(List::stream).toList()).isEqualTo(all);
  }
}
