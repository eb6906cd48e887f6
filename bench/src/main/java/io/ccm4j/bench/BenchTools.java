package io.ccm4j.bench;

import io.ccm4j.app.ToolCommands;
import java.util.List;

/** {@code ccm4j bench}, found by ccm4j on the class path. */
public final class BenchTools implements ToolCommands {

  @Override
  public List<Object> commands() {
    return List.of(new BenchCommand());
  }
}
