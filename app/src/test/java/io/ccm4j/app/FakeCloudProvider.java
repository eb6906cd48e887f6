package io.ccm4j.app;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.ProviderContext;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A cloud with no facets, selectable as {@code --cloud-provider=fake}: enough to run the manager.
 */
public final class FakeCloudProvider implements CloudProvider {

  final AtomicReference<ProviderContext> initializedWith = new AtomicReference<>();

  @Override
  public String providerName() {
    return "fake";
  }

  @Override
  public void initialize(ProviderContext context) {
    initializedWith.set(context);
  }

  /** Registered in {@code META-INF/services} of the test class path. */
  public static final class Factory implements CloudProviderFactory {
    @Override
    public String name() {
      return "fake";
    }

    @Override
    public CloudProvider create(Optional<Path> cloudConfig) {
      return new FakeCloudProvider();
    }
  }
}
