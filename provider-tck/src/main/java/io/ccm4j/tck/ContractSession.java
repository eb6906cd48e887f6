package io.ccm4j.tck;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.Zones;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Assumptions;

/**
 * One check's run: the harness, the provider under test (made on first use, from the harness's
 * factory and cloud config, and initialised) and every other provider the check made; {@link
 * #close()} closes them all, then the harness.
 */
public final class ContractSession implements AutoCloseable {

  /** How often an ensure that answers "retry after" is asked again. */
  static final int ENSURE_ATTEMPTS = 5;

  private final ProviderHarness harness;
  private final Path directory;
  private final List<CloudProvider> made = new ArrayList<>();
  private CloudProvider provider;

  ContractSession(ProviderHarness harness, Path directory) {
    this.harness = harness;
    this.directory = directory;
  }

  public ProviderHarness harness() {
    return harness;
  }

  /** The provider under test, initialised. */
  public CloudProvider provider() throws Exception {
    if (provider == null) {
      provider = newProvider(harness.cloudConfig());
    }
    return provider;
  }

  /**
   * A new provider from the harness's factory and this config, initialised; closed with the run.
   */
  public CloudProvider newProvider(Optional<String> cloudConfig) throws Exception {
    CloudProvider created = harness.factory().create(configFile(cloudConfig));
    return initialised(created);
  }

  /** Initialises a provider the harness made; it is closed with the run. */
  public CloudProvider initialised(CloudProvider created) throws CloudException {
    made.add(created);
    created.initialize(new ProviderContext(harness.clusterName()));
    return created;
  }

  /** The config written to a file, as {@code --cloud-config} gives it. */
  public Optional<Path> configFile(Optional<String> cloudConfig) throws Exception {
    if (cloudConfig.isEmpty()) {
      return Optional.empty();
    }
    Path file = Files.createTempFile(directory, "cloud-config-", ".yaml");
    Files.writeString(file, cloudConfig.get());
    return Optional.of(file);
  }

  public InstancesV2 instances() throws Exception {
    return facet(provider().instancesV2(), "InstancesV2");
  }

  public LoadBalancer loadBalancer() throws Exception {
    return facet(provider().loadBalancer(), "LoadBalancer");
  }

  public Routes routes() throws Exception {
    return facet(provider().routes(), "Routes");
  }

  public Zones zones() throws Exception {
    return facet(provider().zones(), "Zones");
  }

  /** The facet, or the check is skipped: a provider need not offer every facet. */
  static <T> T facet(Optional<T> facet, String name) {
    Assumptions.assumeTrue(facet.isPresent(), "the provider offers no " + name + " facet");
    return facet.orElseThrow();
  }

  /** What an optional hook gives, or the check is skipped naming the hook. */
  public <T> T hook(String name, Callable<Optional<T>> hook) throws Exception {
    Optional<T> value = hook.call();
    Assumptions.assumeTrue(
        value.isPresent(), "the harness gives nothing for ProviderHarness." + name);
    return value.orElseThrow();
  }

  public Node backendNode(int index) throws Exception {
    return harness.backendNode(provider(), index);
  }

  /**
   * {@code ensureLoadBalancer}, asked again after {@link ProviderHarness#finishProvisioning} while
   * it answers "retry after" (as the controller asks again after the delay).
   */
  public LoadBalancerStatus ensure(
      CloudProvider cloud, LoadBalancer balancer, Service service, List<Node> nodes)
      throws Exception {
    RetryAfterException last = null;
    for (int attempt = 0; attempt < ENSURE_ATTEMPTS; attempt++) {
      try {
        return balancer.ensureLoadBalancer(harness.clusterName(), service, nodes);
      } catch (RetryAfterException e) {
        last = e;
        harness.finishProvisioning(cloud, service);
      }
    }
    throw Contract.ENSURE_IDEMPOTENT.broken(
        "ensureLoadBalancer still answered \"retry after\" after %d attempts (%s), with"
                .formatted(ENSURE_ATTEMPTS, last.getMessage())
            + " ProviderHarness.finishProvisioning called between them");
  }

  /** A part of a check that may throw. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }

  /**
   * Runs a check's body, then its clean-up (a load balancer deleted, a route removed), as {@code
   * try … finally} would, except that a clean-up that fails after the body failed is added to the
   * body's failure (suppressed) instead of replacing it: the message stays about what the check
   * found. Otherwise a generated provider's stubs would be reported by the clean-up's stub ({@code
   * ensureLoadBalancerDeleted}) rather than the one the check called first.
   */
  public static void thenCleanUp(Step body, Step cleanUp) throws Exception {
    try {
      body.run();
    } catch (Throwable failure) {
      try {
        cleanUp.run();
      } catch (Throwable cleanUpFailure) {
        failure.addSuppressed(cleanUpFailure);
      }
      throw failure;
    }
    cleanUp.run();
  }

  @Override
  public void close() throws Exception {
    Exception first = null;
    for (CloudProvider cloud : made.reversed()) {
      try {
        cloud.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    try {
      harness.close();
    } catch (Exception e) {
      first = first == null ? e : first;
    }
    if (first != null) {
      throw first;
    }
  }
}
