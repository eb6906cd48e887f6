package io.ccm4j.app;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.ProviderContext;
import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * A cloud whose instance metadata call misbehaves as its cloud-config says, selectable as {@code
 * --cloud-provider=faulty} in a {@link ManagerProcess}. The cloud-config is a properties file:
 *
 * <pre>
 * instanceMetadata=outOfMemoryOnce   # or hang (never returns, ignores interrupts), or ok
 * initialize=throwOnce               # a bug in the provider's start (default: ok)
 * onceMarker=/tmp/...                # "once" across processes: whoever creates this file throws
 * nodes=informer-exec-               # answers for these nodes only (default: every node)
 * </pre>
 *
 * <p>With {@code nodes}, the lookup of any other node fails (a cloud error, retried with backoff):
 * tests that run side by side on one API server then never initialise each other's nodes.
 *
 * <p>Each misbehaviour is announced on standard error first ({@code faulty: ...}), so a test can
 * see it happen in the process's log.
 */
public final class FaultyCloudProvider implements CloudProvider, InstancesV2 {

  private final String mode;
  private final String initialize;
  private final Optional<Path> onceMarker;
  private final String nodes;

  private FaultyCloudProvider(
      String mode, String initialize, Optional<Path> onceMarker, String nodes) {
    this.mode = mode;
    this.initialize = initialize;
    this.onceMarker = onceMarker;
    this.nodes = nodes;
  }

  @Override
  public void initialize(ProviderContext context) {
    if (initialize.equals("throwOnce") && firstHere()) {
      System.err.println("faulty: initialize throws");
      throw new IllegalStateException("faulty provider: a bug in initialize");
    }
  }

  @Override
  public String providerName() {
    return "faulty";
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return Optional.of(this);
  }

  @Override
  public boolean instanceExists(Node node) {
    return true;
  }

  @Override
  public boolean instanceShutdown(Node node) {
    return false;
  }

  @Override
  public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
    String name = node.getMetadata().getName();
    if (!name.startsWith(nodes)) {
      throw new CloudException(
          "faulty: " + name + " is not one of this cloud's nodes " + nodes + "*");
    }
    switch (mode) {
      case "outOfMemoryOnce" -> {
        if (firstHere()) {
          System.err.println("faulty: OutOfMemoryError from instanceMetadata(" + name + ")");
          throw new OutOfMemoryError("faulty provider: Java heap space");
        }
      }
      case "hang" -> {
        System.err.println("faulty: instanceMetadata(" + name + ") hangs");
        while (true) {
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException ignored) {
            // a cloud SDK that does not honour interrupts
          }
        }
      }
      default -> {
        // answers
      }
    }
    return Optional.of(
        new InstanceMetadata("faulty://" + name, "faulty.small", List.of(), "", "", Map.of()));
  }

  private boolean firstHere() {
    if (onceMarker.isEmpty()) {
      return true;
    }
    try {
      Files.createFile(onceMarker.get());
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Registered in {@code META-INF/services} of the test class path. */
  public static final class Factory implements CloudProviderFactory {
    @Override
    public String name() {
      return "faulty";
    }

    @Override
    public CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException {
      Properties properties = new Properties();
      if (cloudConfig.isPresent()) {
        try (Reader reader = Files.newBufferedReader(cloudConfig.get())) {
          properties.load(reader);
        } catch (IOException e) {
          throw new CloudConfigException("cannot read " + cloudConfig.get() + ": " + e);
        }
      }
      return new FaultyCloudProvider(
          properties.getProperty("instanceMetadata", "ok"),
          properties.getProperty("initialize", "ok"),
          Optional.ofNullable(properties.getProperty("onceMarker")).map(Path::of),
          properties.getProperty("nodes", ""));
    }
  }
}
