package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.bench.ManagerProfile.Area;
import io.ccm4j.bench.ManagerProfile.Share;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManagerProfileTest {

  @TempDir Path temp;

  @Test
  void aSampleCountsForEveryKindOfCodeOnItsStack() {
    List<List<String>> stacks =
        List.of(
            List.of(
                "com.sun.crypto.provider.GHASH",
                "sun.security.ssl.SSLEngineImpl",
                "okhttp3.internal.http2.Http2Writer",
                "okio.RealBufferedSink"),
            List.of(
                "com.fasterxml.jackson.databind.deser.BeanDeserializer",
                "io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager",
                "okhttp3.internal.http2.Http2Reader"),
            List.of("io.ccm4j.controllers.node.CloudNodeController", "java.lang.Thread"),
            List.of("java.lang.Object"));

    List<Share> shares = ManagerProfile.classify(stacks);

    assertThat(shares.getFirst()).isEqualTo(new Share("HTTP (OkHttp, Okio)", 2, 50.0));
    assertThat(shares)
        .contains(
            new Share("TLS (JDK, native provider)", 1, 25.0),
            new Share("JSON (Jackson)", 1, 25.0),
            new Share("fabric8 client and informers", 1, 25.0),
            new Share("ccm4j (controllers, workqueue, sim cloud)", 1, 25.0),
            new Share("logging", 0, 0.0));
    assertThat(ManagerProfile.classify(List.of())).allMatch(share -> share.percent() == 0);
  }

  @Test
  void nativeMemoryAreasOfAMebibyteOrMoreMostFirst() {
    String summary =
        """
        12345:

        Native Memory Tracking:

        Total: reserved=1490629KB, committed=237913KB
        -                 Java Heap (reserved=131072KB, committed=131072KB)
                                    (mmap: reserved=131072KB, committed=131072KB, at peak)
        -                     Class (reserved=1049365KB, committed=1621KB)
        -                      Code (reserved=54621KB, committed=14957KB)
        -                        GC (reserved=450KB, committed=450KB)
        -        Shared class space (reserved=65536KB, committed=62528KB, readonly=0KB)
        """;

    assertThat(ManagerProfile.memory(summary))
        .containsExactly(
            new Area("Java Heap", 128.0),
            new Area("Shared class space", 62528 / 1024.0),
            new Area("Code", 14957 / 1024.0),
            new Area("Class", 1621 / 1024.0));
  }

  @Test
  void aRecordingIsReadIntoTheProfileAndPrinted() throws Exception {
    Path jfr = temp.resolve("test.jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
      recording.start();
      long until = System.nanoTime() + 500_000_000L;
      double sink = 0;
      while (System.nanoTime() < until) {
        sink += Math.sqrt(sink + 1);
      }
      assertThat(sink).isPositive();
      recording.stop();
      recording.dump(jfr);
    }
    Map<String, Double> threads = new LinkedHashMap<>();
    threads.put("C2 CompilerThre", 4.5);
    threads.put("ccm4j-api-call-1", 3.5);

    ManagerProfile profile =
        ManagerProfile.read(jfr, threads, "-  Java Heap (reserved=131072KB, committed=65536KB)\n");

    assertThat(profile.samples()).isPositive();
    assertThat(profile.memory()).containsExactly(new Area("Java Heap", 64.0));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    profile.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .contains("Where ccm4j's CPU goes")
        .containsPattern("C2 CompilerThre +4\\.5")
        .containsPattern("ccm4j-api-call-1 +3\\.5")
        .contains(profile.samples() + " JFR samples")
        .containsPattern("JSON \\(Jackson\\) +0\\.0 %")
        .containsPattern("Java Heap +64\\.0");
  }

  @Test
  void theManagerRecordsUnderANameAndJcmdTakesTheRecordingAndTheMemory() {
    assertThat(ManagerProfile.jvmOptions())
        .containsExactly(
            "-XX:StartFlightRecording=name=ccm4j-profile,settings=profile",
            "-XX:NativeMemoryTracking=summary");
    assertThat(ManagerProfile.jcmdCommands(Path.of("/tmp/x.jfr")))
        .containsExactly(
            List.of("JFR.dump", "name=ccm4j-profile", "filename=/tmp/x.jfr"),
            List.of("VM.native_memory", "summary"));
  }
}
