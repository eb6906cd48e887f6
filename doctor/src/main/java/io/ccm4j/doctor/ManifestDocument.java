package io.ccm4j.doctor;

import java.nio.file.Path;
import java.util.Map;

/** One Kubernetes object read from a manifest, with where it starts. */
public record ManifestDocument(Path file, int line, Map<String, Object> object) {

  public String kind() {
    return String.valueOf(object.getOrDefault("kind", ""));
  }

  /** {@code file:line}, for messages. */
  public String location() {
    return file + ":" + line;
  }
}
