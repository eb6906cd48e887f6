package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aCommandsArchivesForEarlierJarsGoAsTheLauncherDeletesThem(@TempDir Path dir)
      throws Exception {
    Path jar = Files.writeString(dir.resolve("ccm4j.jar"), "a jar of 17 bytes");
    Files.setLastModifiedTime(jar, FileTime.from(Instant.ofEpochSecond(1795766912)));
    Path cache = dir.resolve("cds");
    Files.createDirectories(cache);
    Files.writeString(cache.resolve("run-1795759115-3340.jsa"), "an earlier build's");
    Files.writeString(cache.resolve("run-1795766912-17.jsa"), "this build's");
    Files.writeString(cache.resolve("lab-1795734817-3053.jsa"), "another command's");

    LauncherJvm.ClassData archive = LauncherJvm.classData("run", jar, cache).orElseThrow();

    assertThat(archive.archive()).isEqualTo(cache.resolve("run-1795766912-17.jsa"));
    assertThat(archive.exists()).isTrue();
    try (Stream<Path> left = Files.list(cache)) {
      assertThat(left.map(path -> path.getFileName().toString()))
          .containsExactlyInAnyOrder("run-1795766912-17.jsa", "lab-1795734817-3053.jsa");
    }
  }
}
