package io.ccm4j.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A controller knows only itself (as upstream's {@code controllers/*} import neither {@code names/}
 * nor {@code app/}): the manager hands it its name, events and settings through {@link
 * ControllerContext}, so no controller package reads the {@link Controllers} registry or another
 * controller's package. The shared packages ({@code nodeutil}, {@code network}) are not
 * controllers.
 */
class ControllerIndependenceTest {

  private static final Path SOURCES = Path.of("src/main/java/io/ccm4j/controllers");
  private static final Set<String> SHARED = Set.of("nodeutil", "network");
  private static final Pattern IMPORT =
      Pattern.compile(
          "^import (?:static )?io\\.ccm4j\\.controllers\\.(\\w+)\\b", Pattern.MULTILINE);
  private static final Pattern REGISTRY = Pattern.compile("\\bControllers\\.[A-Z_]+\\b");

  @Test
  void noControllerImportsTheRegistryOrAnotherController() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(SOURCES)) {
      files = walk.filter(f -> f.toString().endsWith(".java")).toList();
    }
    int scanned = 0;
    for (Path file : files) {
      Path relative = SOURCES.relativize(file);
      if (relative.getNameCount() < 2) {
        continue; // the registry and the framework types themselves
      }
      scanned++;
      String own = relative.getName(0).toString();
      String source = Files.readString(file);
      Matcher imports = IMPORT.matcher(source);
      while (imports.find()) {
        String target = imports.group(1);
        if (target.equals("Controllers")) {
          problems.add(relative + " imports the Controllers registry");
        } else if (Character.isLowerCase(target.charAt(0))
            && !target.equals(own)
            && !SHARED.contains(target)) {
          problems.add(relative + " imports controller package " + target);
        }
      }
      if (own.equals("nodeutil") || own.equals("network")) {
        continue;
      }
      if (REGISTRY.matcher(source).find()) {
        problems.add(relative + " reads the Controllers registry");
      }
    }
    assertThat(scanned).as("controller sources scanned").isGreaterThan(10);
    assertThat(problems).isEmpty();
  }
}
