package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LauncherJvmTest {

  @Test
  void anArgumentFileIsReadAsJavaReadsItWordsWithoutComments() {
    assertThat(
            LauncherJvm.parseArgumentFile(
                "# a comment\n\n-XX:+UseSerialGC   # why\n  -Da=b -Dc=d\n#-XX:+Never\n"))
        .containsExactly("-XX:+UseSerialGC", "-Da=b", "-Dc=d");
  }

  @Test
  void theRunOptionsAreTheShippedFilesTheImagesEntrypointReads() {
    assertThat(LauncherJvm.runOptions())
        .containsExactly(
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xms16m",
            "-Dio.netty.allocator.maxOrder=7",
            "--enable-native-access=ALL-UNNAMED");
  }
}
