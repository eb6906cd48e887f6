package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcLogTest {

  @Test
  void thePeakIsTheMostHeapInUseBeforeAnyCollection() {
    List<String> serial =
        List.of(
            "[0.012s][info][gc] Using Serial",
            "[0.512s][info][gc] GC(0) Pause Young (Allocation Failure) 15M->6M(58M) 7.331ms",
            "[3.100s][info][gc] GC(1) Pause Full (Allocation Failure) 97M->51M(140M) 88.020ms",
            "[4.200s][info][gc] GC(2) Pause Young (Allocation Failure) 90M->60M(140M) 5.001ms");
    assertThat(GcLog.peakHeapMiB(serial)).isEqualTo(97.0);
  }

  @Test
  void readsEveryUnitAndOtherCollectorsLines() {
    assertThat(
            GcLog.peakHeapMiB(
                List.of(
                    "[1.0s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause)"
                        + " 24M->5M(256M) 3.456ms",
                    "[2.0s][info][gc] GC(4) Pause Young (Allocation Failure) 30720K->8192K(61440K)"
                        + " 1.0ms")))
        .isEqualTo(30.0);
    assertThat(GcLog.peakHeapMiB(List.of("GC(9) Pause Full (System.gc()) 2G->1G(3G) 1s")))
        .isEqualTo(2048.0);
  }

  @Test
  void withoutACollectionOrALogThereIsNoFigure(@TempDir Path dir) throws Exception {
    assertThat(GcLog.peakHeapMiB(List.of("[0.012s][info][gc] Using Serial"))).isNaN();
    assertThat(GcLog.peakHeapMiB(dir.resolve("absent.log"))).isNaN();
    Path log = Files.writeString(dir.resolve("gc.log"), "GC(0) Pause Young 12M->3M(20M) 1ms\n");
    assertThat(GcLog.peakHeapMiB(log)).isEqualTo(12.0);
  }
}
