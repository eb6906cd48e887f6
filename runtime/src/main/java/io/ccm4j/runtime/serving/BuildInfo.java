package io.ccm4j.runtime.serving;

import static java.util.stream.Collectors.joining;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;

/**
 * {@code kubernetes_build_info}, the gauge of 1 every Kubernetes component serves with what it was
 * built from (component-base's {@code metrics/prometheus/version}), with upstream's labels. A
 * dashboard's version panel or an alert on mixed versions reads it. What each holds for ccm4j:
 *
 * <ul>
 *   <li>{@code major}, {@code minor}: the Kubernetes release whose API and managers ccm4j follows
 *       ({@code 1}, {@code 37}), which upstream's manager of that release reports;
 *   <li>{@code git_version}: ccm4j's own version, with Kubernetes' {@code v} ({@code v0.1.0});
 *   <li>{@code git_commit}, {@code git_tree_state}: empty, as ccm4j's build does not record its
 *       commit (upstream's release build writes it and {@code clean});
 *   <li>{@code build_date}: when the build ran, in UTC ({@code 2026-11-28T06:00:00Z});
 *   <li>{@code go_version}: the Java runtime, as Go's names its runtime ({@code java21.0.8});
 *   <li>{@code compiler}: {@code javac}, where Go's is {@code gc};
 *   <li>{@code platform}: operating system and architecture in Go's words ({@code linux/amd64},
 *       {@code linux/arm64}).
 * </ul>
 *
 * <p>An info metric of the Prometheus client, which the text format writes as upstream's gauge
 * ({@code kubernetes_build_info{…} 1}): Micrometer would drop the name's {@code _info}.
 */
public final class BuildInfo {

  private static final String HELP =
      "[BETA] A metric with a constant '1' value labeled by major, minor, git version, git"
          + " commit, git tree state, build date, Go version, and compiler from which Kubernetes"
          + " was built, and platform on which it is running.";

  private final Properties build;

  public BuildInfo() {
    this(readBuildProperties());
  }

  BuildInfo(Properties build) {
    this.build = build;
  }

  public void register(PrometheusMeterRegistry registry) {
    String[] release = property("kubernetes.release").split("\\.", 2);
    String version = property("version");
    Info info =
        Info.builder()
            .name("kubernetes_build")
            .help(HELP)
            .labelNames(
                "major",
                "minor",
                "git_version",
                "git_commit",
                "git_tree_state",
                "build_date",
                "go_version",
                "compiler",
                "platform")
            .register(registry.getPrometheusRegistry());
    info.setLabelValues(
        release[0],
        release.length > 1 ? release[1] : "",
        version.isEmpty() ? "" : "v" + version,
        "",
        "",
        property("build.date"),
        javaVersion(),
        "javac",
        platform());
  }

  /** A value the build filled in, else empty (classes built without Maven's filtering). */
  private String property(String name) {
    String value = build.getProperty(name, "");
    return value.startsWith("${") ? "" : value;
  }

  /** The Java runtime's version as Go's names its own ({@code go1.24.6}): {@code java21.0.8}. */
  static String javaVersion() {
    return "java" + Runtime.version().version().stream().map(String::valueOf).collect(joining("."));
  }

  /** {@code GOOS/GOARCH} of this machine: Java's {@code os.arch} in Go's names. */
  static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String goos = os.startsWith("mac") ? "darwin" : os.startsWith("windows") ? "windows" : os;
    String goarch =
        switch (System.getProperty("os.arch")) {
          case "x86_64", "amd64" -> "amd64";
          case "aarch64", "arm64" -> "arm64";
          case "x86", "i386", "i686" -> "386";
          case "ppc64le" -> "ppc64le";
          case "s390x" -> "s390x";
          default -> System.getProperty("os.arch");
        };
    return goos + "/" + goarch;
  }

  private static Properties readBuildProperties() {
    Properties properties = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("build-info.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }
}
