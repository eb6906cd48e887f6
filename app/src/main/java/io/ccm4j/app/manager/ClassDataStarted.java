package io.ccm4j.app.manager;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the {@code ./ccm4j} launcher that this run started its controllers. The launcher keeps the
 * class-data archive the JVM writes as {@code run} exits only when the run that wrote it got this
 * far, so the archive holds the classes of a whole start; one written by a run that stopped sooner
 * (a wrong flag, a cluster out of reach) is written again by the next run. The launcher names the
 * file in the system property {@value #PROPERTY}; without it (a container, a test), nothing.
 */
final class ClassDataStarted {

  static final String PROPERTY = "ccm4j.class-data.started";

  private static final Logger log = LoggerFactory.getLogger(ClassDataStarted.class);

  private ClassDataStarted() {}

  /** Creates the file the launcher named, if it named one and it is not there yet. */
  static void record() {
    String file = System.getProperty(PROPERTY);
    if (file == null || file.isBlank()) {
      return;
    }
    Path marker = Path.of(file);
    if (Files.exists(marker)) {
      return;
    }
    try {
      Files.createFile(marker);
    } catch (IOException e) {
      // The next start reads its classes from the jars again: slower, nothing else.
      log.debug("could not record the start for the class-data archive in {}: {}", marker, e);
    }
  }
}
