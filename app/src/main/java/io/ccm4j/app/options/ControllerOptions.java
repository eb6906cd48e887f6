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
      split = ",",
      paramLabel = "<names>",
      defaultValue = "*",
      descriptionKey = "controllers") // RunHelp: the names come from Controllers.ALL
  List<String> controllers;

  public Optional<String> validate() {
    try {
      selection();
    } catch (IllegalArgumentException e) {
      return Optional.of("--controllers: " + e.getMessage());
    }
    return Optional.empty();
  }

  public ControllerSelection selection() {
    return ControllerSelection.parse(controllers);
  }
}
