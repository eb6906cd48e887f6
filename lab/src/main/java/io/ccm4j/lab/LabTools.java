package io.ccm4j.lab;

import io.ccm4j.app.ToolCommands;
import java.util.List;

/** {@code ccm4j lab}, {@code nodes} and {@code control-plane}, found by ccm4j on the class path. */
public final class LabTools implements ToolCommands {

  @Override
  public List<Object> commands() {
    return List.of(new LabCommand(), new NodesCommand(), new ControlPlaneCommand());
  }
}
