package io.ccm4j.doctor;

import java.nio.file.Path;
import java.util.Map;

/**
 * One Kubernetes object read from a manifest, with where it starts and the whole text of its file
 * as it was read: {@code --fix} and {@code --diff} edit that text, which a pipe ({@code
 * /dev/stdin}, {@code <(helm template ...)}) gives only once.
 */
public record ManifestDocument(Path file, int line, Map<String, Object> object, String fileText) {

  public String kind() {
    return String.valueOf(object.getOrDefault("kind", ""));
  }

  /** {@code file:line}, for messages. */
  public String location() {
    return file + ":" + line;
  }

  /** Records compare their components; the file's text says nothing of the object. */
  @Override
  public boolean equals(Object other) {
    return other instanceof ManifestDocument that
        && file.equals(that.file)
        && line == that.line
        && object.equals(that.object);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(file, line, object);
  }
}
