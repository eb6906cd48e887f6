package io.ccm4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The libraries the {@code ./ccm4j} launcher runs with ({@code target/lib}, after the package
 * phase): none of them signed, so that class-data sharing archives their classes and the JVM
 * digests no jar as it starts ({@code scripts/UnsignJars.java}), and the jars that were signed
 * still whole; no class of a Java too old for it to archive ({@code
 * scripts/ModernClassFiles.java}), and the rewritten ones still verified and loaded by the JVM.
 */
class LauncherLibrariesIT {

  private static final Path LIB = Path.of("target", "lib");

  @Test
  void noLibraryIsSignedAndTheUnsignedOnesStillHoldTheirClasses() throws IOException {
    List<Path> jars;
    try (Stream<Path> files = Files.list(LIB)) {
      jars = files.filter(file -> file.toString().endsWith(".jar")).toList();
    }
    assertThat(jars).as("copied by the package phase").isNotEmpty();
    for (Path jar : jars) {
      try (JarFile file = new JarFile(jar.toFile())) {
        assertThat(file.stream().map(entry -> entry.getName()))
            .as("%s: no signature file", jar.getFileName())
            .noneMatch(name -> name.matches("(?i)META-INF/[^/]+\\.(SF|RSA|DSA|EC)"));
      }
    }
    Path bouncyCastle =
        jars.stream()
            .filter(jar -> jar.getFileName().toString().startsWith("bcpkix-"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("Bouncy Castle's bcpkix is on the class path"));
    try (JarFile file = new JarFile(bouncyCastle.toFile())) {
      assertThat(file.getEntry("org/bouncycastle/cert/X509v3CertificateBuilder.class"))
          .as("the classes of a jar whose signature was taken out")
          .isNotNull();
      assertThat(file.getManifest()).as("and its manifest").isNotNull();
    }
  }

  @Test
  void noClassIsOfAJavaTooOldToArchiveAndPicocliStillLoadsAndVerifies() throws Exception {
    assumeTrue(
        Runtime.version().feature() >= 24,
        "the build rewrites old class files with the class-file API of JDK 24 and later");
    List<Path> jars;
    try (Stream<Path> files = Files.list(LIB)) {
      jars = files.filter(file -> file.toString().endsWith(".jar")).toList();
    }
    for (Path jar : jars) {
      try (JarFile file = new JarFile(jar.toFile())) {
        for (JarEntry entry : Collections.list(file.entries())) {
          if (entry.getName().endsWith(".class")) {
            try (InputStream in = file.getInputStream(entry)) {
              byte[] header = in.readNBytes(8);
              int major = ((header[6] & 0xff) << 8) | (header[7] & 0xff);
              assertThat(major)
                  .as("%s!%s: class file version", jar.getFileName(), entry.getName())
                  .isGreaterThanOrEqualTo(50);
            }
          }
        }
      }
    }
    Path picocli =
        jars.stream()
            .filter(jar -> jar.getFileName().toString().startsWith("picocli-"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("picocli is on the class path"));
    // Every rewritten class through the verifier (initialising links, and linking verifies).
    try (JarFile file = new JarFile(picocli.toFile());
        URLClassLoader loader =
            new URLClassLoader(
                new URL[] {picocli.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      List<String> classes =
          Collections.list(file.entries()).stream()
              .map(JarEntry::getName)
              .filter(name -> name.startsWith("picocli/") && name.endsWith(".class"))
              .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
              .toList();
      assertThat(classes).hasSizeGreaterThan(200);
      for (String name : classes) {
        assertThat(Class.forName(name, true, loader).getClassLoader()).isSameAs(loader);
      }
    }
  }

  /**
   * Every command's classes are on the jar's class path: {@code --version} builds the model of
   * every command, the tools' too (a module the launcher also named as a test dependency once fell
   * out of {@code target/lib}, and only the tools missed it).
   */
  @Test
  void theLauncherBuildsEveryCommand(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("version.log");
    ProcessBuilder builder =
        new ProcessBuilder("bash", Path.of("..", "ccm4j").toAbsolutePath().normalize().toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.command().add("--version");
    builder.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
    Process version = builder.start();
    assertThat(version.waitFor()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log)).startsWith("ccm4j ");
  }
}
