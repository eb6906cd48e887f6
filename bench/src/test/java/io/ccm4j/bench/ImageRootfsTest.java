package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's entrypoint as a command of this machine: every path of the image moved under its
 * root.
 */
class ImageRootfsTest {

  @TempDir Path root;

  @Test
  void theEntrypointRunsTheImagesJavaWithItsOptionsCacheAndClassPathMovedUnderTheRoot()
      throws Exception {
    Files.createDirectories(root.resolve("app"));
    Files.writeString(
        root.resolve("app/jib-classpath-file"),
        "/app/classpath/ccm4j-app.jar:/app/libs/a.jar:/app/libs/b.jar\n");
    Files.writeString(
        root.resolve("app/ccm4j-aot.jvmoptions"), "# the cache\n-XX:AOTCache=/app/ccm4j.aot\n");
    var config =
        new ObjectMapper()
            .readTree(
                """
                {"config": {
                  "Env": ["PATH=/opt/java/bin", "JDK_JAVA_OPTIONS=@/app/resources/ccm4j-run.jvmoptions"],
                  "Entrypoint": ["java", "-XX:MaxRAMPercentage=60", "@/app/ccm4j-aot.jvmoptions",
                                 "-cp", "@/app/jib-classpath-file", "io.ccm4j.app.Ccm4j"]}}
                """);

    List<String> command =
        new ImageRootfs(root, config)
            .command(List.of("-Xmx256m"), List.of("run", "--leader-elect=false"));

    assertThat(command)
        .containsExactly(
            root.resolve("opt/java/bin/java").toString(),
            "@" + root.resolve("app/resources/ccm4j-run.jvmoptions"),
            "-XX:MaxRAMPercentage=60",
            "-XX:AOTCache=" + root.resolve("app/ccm4j.aot"),
            "-cp",
            root.resolve("app/classpath/ccm4j-app.jar")
                + ":"
                + root.resolve("app/libs/a.jar")
                + ":"
                + root.resolve("app/libs/b.jar"),
            "-Xmx256m",
            "io.ccm4j.app.Ccm4j",
            "run",
            "--leader-elect=false");
  }
}
