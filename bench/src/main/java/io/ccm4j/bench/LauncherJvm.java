package io.ccm4j.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The JVM {@code ./ccm4j run} starts (see that script), for a benchmark that starts the manager in
 * a JVM of its own: the options of {@code ccm4j-run.jvmoptions} (the container image's too) and the
 * launcher's class-data archive.
 */
final class LauncherJvm {

  private static final String RUN_OPTIONS = "/ccm4j-run.jvmoptions";

  private LauncherJvm() {}

  /** The options of {@code ccm4j-run.jvmoptions}, from the class path. */
  static List<String> runOptions() {
    try (InputStream in = LauncherJvm.class.getResourceAsStream(RUN_OPTIONS)) {
      if (in == null) {
        throw new IllegalStateException(RUN_OPTIONS + " is missing from the class path");
      }
      return parseArgumentFile(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The arguments of a java @argument file without quotes: words, {@code #} to the line's end. */
  static List<String> parseArgumentFile(String text) {
    List<String> options = new ArrayList<>();
    for (String line : text.split("\n")) {
      int comment = line.indexOf('#');
      String content = (comment < 0 ? line : line.substring(0, comment)).strip();
      if (!content.isEmpty()) {
        options.addAll(List.of(content.split("\\s+")));
      }
    }
    return options;
  }

  /**
   * The archive the launcher gives {@code command} for the jar this JVM runs from, if it runs from
   * ccm4j.jar: {@code <cache>/ccm4j/cds/<command>-<jar mtime>-<jar size>.jsa}.
   */
  static Optional<ClassData> classData(String command) {
    String first = System.getProperty("java.class.path", "").split(File.pathSeparator, -1)[0];
    if (!first.endsWith("ccm4j.jar")) {
      return Optional.empty(); // run from classes (tests, an IDE): the launcher is not involved
    }
    return classData(command, Path.of(first), cacheDirectory());
  }

  /**
   * The archive for {@code command} and {@code jar} in {@code directory}; as the launcher, the
   * command's archives for other jars (earlier builds) are deleted, so rebuilds leave none behind,
   * and {@code run}'s is kept only when the run that wrote it started its controllers (its file
   * {@code .started} beside it), else the next run writes it again.
   */
  static Optional<ClassData> classData(String command, Path jar, Path directory) {
    try {
      long mtime = Files.getLastModifiedTime(jar).to(TimeUnit.SECONDS);
      Path archive = directory.resolve(command + "-" + mtime + "-" + Files.size(jar) + ".jsa");
      Path started = ClassData.startedMarker(archive);
      Files.createDirectories(directory);
      try (DirectoryStream<Path> earlier =
          Files.newDirectoryStream(directory, command + "-[0-9]*.jsa*")) {
        for (Path other : earlier) {
          if (!other.equals(archive) && !other.equals(started)) {
            Files.deleteIfExists(other);
          }
        }
      }
      if (command.equals("run")) {
        if (!Files.exists(started)) {
          Files.deleteIfExists(archive);
        }
        if (!Files.exists(archive)) {
          Files.deleteIfExists(started);
        }
        return Optional.of(new ClassData(archive, Optional.of(started)));
      }
      return Optional.of(new ClassData(archive, Optional.empty()));
    } catch (IOException e) {
      return Optional.empty(); // as the launcher: no cache directory, no archive
    }
  }

  /** As the launcher: {@code $XDG_CACHE_HOME/ccm4j/cds}, else {@code ~/.cache/ccm4j/cds}. */
  private static Path cacheDirectory() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg == null || xdg.isBlank()
            ? Path.of(System.getProperty("user.home"), ".cache")
            : Path.of(xdg);
    return base.resolve("ccm4j").resolve("cds");
  }

  /**
   * A class-data archive the JVM maps when it exists and writes when its run ends otherwise.
   *
   * @param archive where it is
   * @param started for {@code run}: the file the manager creates once its controllers started,
   *     which keeps the archive its run writes
   */
  record ClassData(Path archive, Optional<Path> started) {

    static Path startedMarker(Path archive) {
      return archive.resolveSibling(archive.getFileName() + ".started");
    }

    /** Whether a run before this one left it (so this start maps it). */
    boolean exists() {
      return Files.isRegularFile(archive);
    }

    /** The launcher's JVM options for it. */
    List<String> jvmOptions() {
      List<String> options = new ArrayList<>();
      started.ifPresent(file -> options.add("-Dccm4j.class-data.started=" + file));
      options.addAll(
          List.of(
              "-XX:SharedArchiveFile=" + archive,
              "-XX:+AutoCreateSharedArchive",
              "-Xlog:cds*=off",
              "-Xlog:aot*=off"));
      return options;
    }
  }
}
