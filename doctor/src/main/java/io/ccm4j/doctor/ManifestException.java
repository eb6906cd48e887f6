package io.ccm4j.doctor;

import java.nio.file.Path;

/**
 * A manifest cannot be read; the message names the file and the line ({@code file:line: reason}).
 *
 * @see #file()
 * @see #line()
 * @see #reason()
 */
public class ManifestException extends Exception {

  private final Path file;
  private final int line;
  private final String reason;

  /** At a line of the file (from 1). */
  public ManifestException(Path file, int line, String reason) {
    super(line > 0 ? "%s:%d: %s".formatted(file, line, reason) : file + ": " + reason);
    this.file = file;
    this.line = line;
    this.reason = reason;
  }

  /** In the file as a whole. */
  public ManifestException(Path file, String reason) {
    this(file, 0, reason);
  }

  public Path file() {
    return file;
  }

  /** The line (from 1); 0 when the problem is the whole file's. */
  public int line() {
    return line;
  }

  /** What is wrong, without the file and line. */
  public String reason() {
    return reason;
  }
}
