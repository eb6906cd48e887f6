package io.ccm4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The libraries the {@code ./ccm4j} launcher runs with ({@code target/lib}, after the package
 * phase): none of them signed, so that class-data sharing archives their classes and the JVM
 * digests no jar as it starts ({@code scripts/UnsignJars.java}), and the jars that were signed
 * still whole.
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
}
