package io.ccm4j.app;

import java.util.List;

/**
 * Subcommands of {@code ccm4j} beyond the product's {@code run} and {@code doctor}, found on the
 * class path with {@link java.util.ServiceLoader}: the lab and bench modules register theirs in
 * {@code META-INF/services/io.ccm4j.app.ToolCommands}. {@code ./ccm4j}, whose class path has them,
 * lists them; the container image, which has app alone, does not.
 */
public interface ToolCommands {

  /** picocli command objects (classes annotated with {@code @Command}), each a subcommand. */
  List<Object> commands();
}
