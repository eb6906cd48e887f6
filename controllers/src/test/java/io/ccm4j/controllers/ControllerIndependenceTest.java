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
 * nor {@code app/}): the manager hands it its name and events through {@link ControllerContext} and
 * its own settings record beside it, so no controller package reads the {@link Controllers}
 * registry, the {@link ControllerSettings} holder the manager keeps them in, or another
 * controller's package (its settings included). The shared packages ({@code nodeutil}, {@code
 * network}) are not controllers.
 */
class ControllerIndependenceTest {

  private static final Path SOURCES = Path.of("src/main/java/io/ccm4j/controllers");
  private static final Set<String> SHARED = Set.of("nodeutil", "network");

  /** The registry and the manager's holder of every controller's settings. */
  private static final Set<String> WIRING = Set.of("Controllers", "ControllerSettings");

  /** A reference into this module, imported or written out in full. */
  private static final Pattern REFERENCE =
      Pattern.compile("\\bio\\.ccm4j\\.controllers\\.(\\w+)\\b");

  private static final Pattern REGISTRY = Pattern.compile("\\bControllers\\.[A-Z_]+\\b");
  private static final Pattern HOLDER = Pattern.compile("\\bControllerSettings\\b");

  @Test
  void noControllerReadsTheRegistryTheSettingsHolderOrAnotherController() throws IOException {
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
      Matcher references = REFERENCE.matcher(source);
      while (references.find()) {
        String target = references.group(1);
        if (WIRING.contains(target)) {
          problems.add(relative + " refers to " + target);
        } else if (Character.isLowerCase(target.charAt(0))
            && !target.equals(own)
            && !SHARED.contains(target)) {
          problems.add(relative + " refers to controller package " + target);
        }
      }
      if (REGISTRY.matcher(source).find()) {
        problems.add(relative + " reads the Controllers registry");
      }
      if (HOLDER.matcher(source).find()) {
        problems.add(relative + " reads the ControllerSettings holder");
      }
    }
    assertThat(scanned).as("controller sources scanned").isGreaterThan(10);
    assertThat(problems).isEmpty();
  }
}
