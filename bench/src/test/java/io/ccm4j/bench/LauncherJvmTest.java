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
            "--enable-native-access=ALL-UNNAMED");
  }

  @Test
  void aCommandsArchivesForEarlierJarsGoAsTheLauncherDeletesThem(@TempDir Path dir)
      throws Exception {
    Path jar = jarOf17Bytes(dir);
    Path cache = Files.createDirectories(dir.resolve("cds"));
    Files.writeString(cache.resolve("run-1795759115-3340.jsa"), "an earlier build's");
    Files.writeString(cache.resolve("run-1795759115-3340.jsa.started"), "");
    Files.writeString(cache.resolve("run-1795766912-17.jsa"), "this build's");
    Files.writeString(cache.resolve("run-1795766912-17.jsa.started"), "");
    Files.writeString(cache.resolve("run-help-1795766912-17.jsa"), "run --help's");
    Files.writeString(cache.resolve("lab-1795734817-3053.jsa"), "another command's");

    LauncherJvm.ClassData archive = LauncherJvm.classData("run", jar, cache).orElseThrow();

    assertThat(archive.archive()).isEqualTo(cache.resolve("run-1795766912-17.jsa"));
    assertThat(archive.exists()).isTrue();
    assertThat(archive.jvmOptions())
        .startsWith("-Dccm4j.class-data.started=" + cache.resolve("run-1795766912-17.jsa.started"));
    assertThat(names(cache))
        .containsExactlyInAnyOrder(
            "run-1795766912-17.jsa",
            "run-1795766912-17.jsa.started",
            "run-help-1795766912-17.jsa",
            "lab-1795734817-3053.jsa");
  }

  @Test
  void anArchiveOfARunThatStoppedBeforeItsControllersStartedIsWrittenAgain(@TempDir Path dir)
      throws Exception {
    Path jar = jarOf17Bytes(dir);
    Path cache = Files.createDirectories(dir.resolve("cds"));
    Files.writeString(cache.resolve("run-1795766912-17.jsa"), "a run that stopped early wrote it");

    LauncherJvm.ClassData archive = LauncherJvm.classData("run", jar, cache).orElseThrow();

    assertThat(archive.exists()).as("this run writes it again").isFalse();
    assertThat(names(cache)).isEmpty();
  }

  @Test
  void aStartedMarkWithoutItsArchiveGoes(@TempDir Path dir) throws Exception {
    Path jar = jarOf17Bytes(dir);
    Path cache = Files.createDirectories(dir.resolve("cds"));
    Files.writeString(cache.resolve("run-1795766912-17.jsa.started"), "");

    LauncherJvm.ClassData archive = LauncherJvm.classData("run", jar, cache).orElseThrow();

    assertThat(archive.exists()).isFalse();
    assertThat(names(cache)).as("the next archive is kept only if its own run starts").isEmpty();
  }

  private static Path jarOf17Bytes(Path dir) throws Exception {
    Path jar = Files.writeString(dir.resolve("ccm4j.jar"), "a jar of 17 bytes");
    Files.setLastModifiedTime(jar, FileTime.from(Instant.ofEpochSecond(1795766912)));
    return jar;
  }

  private static java.util.List<String> names(Path directory) throws Exception {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(path -> path.getFileName().toString()).toList();
    }
  }
}
