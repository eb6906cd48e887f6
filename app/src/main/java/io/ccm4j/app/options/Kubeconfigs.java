package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.CloudConfigYaml;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.Context;
import io.fabric8.kubernetes.api.model.ExecConfig;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;

/**
 * What makes a kubeconfig unusable, found before anything starts: fabric8 reads a kubeconfig
 * without a usable context as none (and then tries the in-cluster address, a minute of retries
 * later failing on {@code kubernetes.default.svc}), and a user whose exec credential plugin is
 * missing as anonymous (every request then refused as {@code system:anonymous}). client-go refuses
 * both at once; so does ccm4j, naming the file and what is missing.
 */
final class Kubeconfigs {

  private Kubeconfigs() {}

  /**
   * Why the file is no usable kubeconfig, if it is not. With {@code --master} given, which names
   * the server, a kubeconfig without a context or a cluster's server is usable (client-go's
   * BuildConfigFromFlags takes it so).
   */
  static Optional<String> problem(Path file, boolean masterGiven) {
    if (Files.isDirectory(file)) {
      return Optional.of(file + " is a directory");
    }
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException | RuntimeException e) {
      return Optional.of("cannot read " + file);
    }
    Config config;
    try {
      // fabric8's own reader, as Config.fromKubeconfig reads the file next: one set of Jackson
      // deserializers for the two reads at start.
      config = KubeConfigUtils.parseConfigFromString(text);
    } catch (RuntimeException e) {
      return Optional.of(file + " is not a kubeconfig: " + unreadable(e));
    }
    if (config == null) {
      return Optional.of(file + " is empty");
    }
    String current = config.getCurrentContext();
    if (current == null || current.isBlank()) {
      return masterGiven ? Optional.empty() : Optional.of(file + " names no current-context");
    }
    Optional<Context> context =
        named(config.getContexts()).stream()
            .filter(c -> current.equals(c.getName()))
            .map(NamedContext::getContext)
            .filter(Objects::nonNull)
            .findFirst();
    if (context.isEmpty()) {
      return masterGiven
          ? Optional.empty()
          : Optional.of(
              "%s: its current-context \"%s\" is not among its contexts".formatted(file, current));
    }
    String clusterName = context.get().getCluster();
    Optional<Cluster> cluster =
        named(config.getClusters()).stream()
            .filter(c -> Objects.equals(clusterName, c.getName()))
            .map(NamedCluster::getCluster)
            .filter(Objects::nonNull)
            .findFirst();
    if (cluster.isEmpty() && !masterGiven) {
      return Optional.of(
          "%s: the cluster \"%s\" of context \"%s\" is not among its clusters"
              .formatted(file, clusterName, current));
    }
    if (!masterGiven
        && (cluster.get().getServer() == null || cluster.get().getServer().isBlank())) {
      return Optional.of("%s: the cluster \"%s\" has no server".formatted(file, clusterName));
    }
    String userName = context.get().getUser();
    if (userName == null || userName.isBlank()) {
      return Optional.empty();
    }
    Optional<AuthInfo> user =
        named(config.getUsers()).stream()
            .filter(u -> userName.equals(u.getName()))
            .map(NamedAuthInfo::getUser)
            .filter(Objects::nonNull)
            .findFirst();
    if (user.isEmpty()) {
      return Optional.of(
          "%s: the user \"%s\" of context \"%s\" is not among its users"
              .formatted(file, userName, current));
    }
    ExecConfig exec = user.get().getExec();
    if (exec != null && exec.getCommand() != null && !found(exec.getCommand(), file)) {
      return Optional.of(
          "%s: the exec credential plugin \"%s\" of user \"%s\" is not found"
              .formatted(file, exec.getCommand(), userName));
    }
    return Optional.empty();
  }

  /**
   * Why fabric8's reader could not read the text, in one line: SnakeYAML Engine's message quotes
   * the text over several lines with a caret under the problem, and Jackson's names Java types.
   */
  private static String unreadable(RuntimeException failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof MarkedYamlEngineException marked
          && marked.getProblemMark().isPresent()) {
        return "line %d: not valid YAML: %s%s"
            .formatted(
                marked.getProblemMark().get().getLine() + 1,
                marked.getProblem(),
                marked.getContext() == null ? "" : " (" + marked.getContext() + ")");
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return CloudConfigYaml.problem(failure).orElseGet(() -> KubernetesErrors.reason(failure));
  }

  private static <T> List<T> named(List<T> entries) {
    return entries == null ? List.of() : entries;
  }

  /**
   * Whether the plugin's command runs: a path (relative to the kubeconfig's directory, as client-go
   * resolves it) that is executable, or a name on the PATH.
   */
  private static boolean found(String command, Path kubeconfig) {
    if (command.contains(File.separator)) {
      Path path = Path.of(command);
      if (!path.isAbsolute() && kubeconfig.toAbsolutePath().getParent() != null) {
        path = kubeconfig.toAbsolutePath().getParent().resolve(path);
      }
      return Files.isExecutable(path);
    }
    String searchPath = Optional.ofNullable(System.getenv("PATH")).orElse("");
    for (String directory : searchPath.split(File.pathSeparator)) {
      if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, command))) {
        return true;
      }
    }
    return false;
  }
}
