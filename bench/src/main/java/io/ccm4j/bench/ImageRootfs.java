package io.ccm4j.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ccm4j as its container image runs it, as a process of this machine: the image Jib built ({@code
 * app/target/ccm4j-image.tar}) unpacked into a directory, and its entrypoint (the image's Java
 * runtime, JVM options, AOT cache and class path) with every path of the image moved under that
 * directory. The JVM maps an AOT cache whose class path was moved as a whole.
 *
 * @param root the unpacked root file system
 * @param config the image's configuration ({@code config.json})
 */
record ImageRootfs(Path root, JsonNode config) {

  /** Where Jib leaves the image, in the checkout. */
  static final Path IMAGE = Path.of("app", "target", "ccm4j-image.tar");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LAYER = Pattern.compile("[0-9a-f]+\\.tar\\.gz");

  /**
   * Unpacks {@code image} into {@code dir} (emptied first is up to the caller: an existing {@code
   * dir/rootfs} is taken as this image's, unpacked before).
   */
  static ImageRootfs unpack(Path image, Path dir) throws IOException, InterruptedException {
    Path root = dir.resolve("rootfs");
    Files.createDirectories(dir);
    run(
        List.of(
            "tar", "-xf", image.toString(), "-C", dir.toString(), "manifest.json", "config.json"));
    if (!Files.isDirectory(root.resolve("app"))) {
      Path partial = dir.resolve("rootfs.partial");
      Files.createDirectories(partial);
      Matcher layers = LAYER.matcher(Files.readString(dir.resolve("manifest.json")));
      while (layers.find()) {
        run(List.of("tar", "-xf", image.toString(), "-C", dir.toString(), layers.group()));
        Path layer = dir.resolve(layers.group());
        run(
            List.of(
                "tar",
                "-xzf",
                layer.toString(),
                "--warning=no-unknown-keyword",
                "-C",
                partial.toString()));
        Files.delete(layer);
      }
      Files.move(partial, root);
    }
    return new ImageRootfs(root, JSON.readTree(dir.resolve("config.json").toFile()));
  }

  /**
   * The image's entrypoint as a command of this machine, then {@code extraJvmOptions} (as a pod's
   * JDK_JAVA_OPTIONS would add them) and {@code arguments}: {@code java} is the image's, its
   * options file (JDK_JAVA_OPTIONS) and its argument files are read from under {@link #root()}.
   */
  List<String> command(List<String> extraJvmOptions, List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>();
    JsonNode entrypoint = config.at("/config/Entrypoint");
    for (int i = 0; i < entrypoint.size(); i++) {
      String part = entrypoint.get(i).asText();
      if (i == 0) {
        command.add(root.resolve("opt/java/bin").resolve(part).toString());
        command.addAll(jdkJavaOptions());
        continue;
      }
      if (part.startsWith("@/")) {
        // an argument file of the image: its words, moved
        command.addAll(
            LauncherJvm.parseArgumentFile(Files.readString(inside(part.substring(1)))).stream()
                .map(this::move)
                .toList());
      } else if (i == entrypoint.size() - 1) {
        command.addAll(extraJvmOptions);
        command.add(part);
      } else {
        command.add(move(part));
      }
    }
    command.addAll(arguments);
    return command;
  }

  /** The image's JDK_JAVA_OPTIONS, its {@code @/file}s moved under the root. */
  private List<String> jdkJavaOptions() {
    for (JsonNode entry : config.at("/config/Env")) {
      String[] pair = entry.asText().split("=", 2);
      if (pair[0].equals("JDK_JAVA_OPTIONS")) {
        return List.of(pair[1].strip().split("\\s+")).stream()
            .map(word -> word.startsWith("@/") ? "@" + inside(word.substring(1)) : word)
            .toList();
      }
    }
    return List.of();
  }

  /** A word of the entrypoint: a class path or an archive's option, its image paths moved. */
  private String move(String word) {
    if (word.startsWith("-XX:AOTCache=") || word.startsWith("-XX:SharedArchiveFile=")) {
      String[] option = word.split("=", 2);
      return option[0] + "=" + inside(option[1]);
    }
    return moveClassPath(word);
  }

  /** A class path of the image's absolute paths, each moved under the root. */
  String moveClassPath(String classPath) {
    if (!classPath.startsWith("/")) {
      return classPath;
    }
    return String.join(
        ":", List.of(classPath.split(":")).stream().map(p -> inside(p).toString()).toList());
  }

  private Path inside(String imagePath) {
    return root.resolve(imagePath.replaceFirst("^/+", ""));
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output.strip());
    }
  }
}
