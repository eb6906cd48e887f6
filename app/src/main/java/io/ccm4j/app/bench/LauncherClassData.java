package io.ccm4j.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The class-data archive the {@code ccm4j} launcher gives a command (see that script): {@code
 * <cache>/ccm4j/cds/<command>-<jar mtime>-<jar size>.jsa}, written by the JVM when the first run of
 * the command with that jar ends. A benchmark that starts {@code ccm4j run} in a JVM of its own
 * passes the same options, so the process starts as {@code ./ccm4j run} does.
 */
record LauncherClassData(Path archive) {

  /** The archive of {@code command} for the jar this JVM runs from, if it runs from ccm4j.jar. */
  static Optional<LauncherClassData> forCommand(String command) {
    String classPath = System.getProperty("java.class.path", "");
    String first = classPath.split(java.io.File.pathSeparator, -1)[0];
    if (!first.endsWith("ccm4j.jar")) {
      return Optional.empty(); // run from classes (tests, an IDE): the launcher is not involved
    }
    Path jar = Path.of(first);
    try {
      long mtime = Files.getLastModifiedTime(jar).to(TimeUnit.SECONDS);
      return Optional.of(
          new LauncherClassData(
              cacheDirectory().resolve(command + "-" + mtime + "-" + Files.size(jar) + ".jsa")));
    } catch (IOException e) {
      return Optional.empty();
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

  /** Whether a run before this one left the archive (so this start maps it). */
  boolean exists() {
    return Files.isRegularFile(archive);
  }

  /** The launcher's JVM options for it. */
  List<String> jvmOptions() {
    try {
      Files.createDirectories(archive.getParent());
    } catch (IOException e) {
      return List.of(); // as the launcher: no cache directory, no archive
    }
    return List.of(
        "-XX:SharedArchiveFile=" + archive,
        "-XX:+AutoCreateSharedArchive",
        "-Xlog:cds*=off",
        "-Xlog:aot*=off");
  }
}
