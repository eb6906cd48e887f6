package io.ccm4j.controlplane;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes release as its binaries report it ({@code v1.37.2}); decides which flags a binary of
 * that release takes.
 */
public record KubernetesVersion(int major, int minor, int patch) {

  private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)\\.(\\d+)(?:[-+].*)?");

  /**
   * Reads {@code v1.37.2}, {@code 1.37.2} or a pre-release such as {@code v1.37.0-alpha.1}.
   *
   * @throws IllegalArgumentException naming the text when it is no such version
   */
  public static KubernetesVersion parse(String text) {
    Matcher matcher = VERSION.matcher(text.strip());
    if (!matcher.matches()) {
      throw new IllegalArgumentException(
          "'%s' is not a Kubernetes version such as v1.37.2".formatted(text));
    }
    return new KubernetesVersion(
        Integer.parseInt(matcher.group(1)),
        Integer.parseInt(matcher.group(2)),
        Integer.parseInt(matcher.group(3)));
  }

  /** Whether this release is {@code 1.<minor>} or newer. */
  public boolean atLeast(int minor) {
    return major > 1 || (major == 1 && this.minor >= minor);
  }

  @Override
  public String toString() {
    return "v%d.%d.%d".formatted(major, minor, patch);
  }
}
