package io.ccm4j.app.options;

import io.ccm4j.controllers.ControllerSelection;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Which controllers run; each controller's own flags are in its group ({@link
 * NodeControllerOptions}, {@link CloudNodeLifecycleOptions}, {@link ServiceControllerOptions},
 * {@link NodeLifecycleOptions}, {@link NetworkOptions}).
 */
public final class ControllerOptions {

  @Option(
      names = "--controllers",
      paramLabel = "<names>",
      defaultValue = "*",
      descriptionKey = "controllers") // RunHelp: the names come from Controllers.ALL
  List<String> controllers; // each occurrence as given: upstream's list syntax (GoCsv)

  public Optional<String> validate() {
    try {
      GoCsv.fields("--controllers", controllers);
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    try {
      selection();
    } catch (IllegalArgumentException e) {
      return Optional.of("--controllers: " + e.getMessage());
    }
    return Optional.empty();
  }

  public ControllerSelection selection() {
    return ControllerSelection.parse(GoCsv.fields("--controllers", controllers));
  }
}
