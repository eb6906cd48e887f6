package io.ccm4j.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CloudProvidersTest {

  public static final class Alpha implements CloudProviderFactory {
    @Override
    public String name() {
      return "alpha";
    }

    @Override
    public CloudProvider create(Optional<Path> cloudConfig) {
      return () -> "alpha";
    }
  }

  public static final class Beta implements CloudProviderFactory {
    @Override
    public String name() {
      return "beta";
    }

    @Override
    public CloudProvider create(Optional<Path> cloudConfig) {
      return () -> "beta";
    }
  }

  public static final class AnotherAlpha implements CloudProviderFactory {
    @Override
    public String name() {
      return "alpha";
    }

    @Override
    public CloudProvider create(Optional<Path> cloudConfig) {
      return () -> "alpha";
    }
  }

  @TempDir Path services;

  private ClassLoader registering(Class<?>... factories) throws Exception {
    Path file = services.resolve("META-INF/services/" + CloudProviderFactory.class.getName());
    Files.createDirectories(file.getParent());
    Files.write(
        file,
        List.of(java.util.Arrays.stream(factories).map(Class::getName).toArray(String[]::new)));
    return new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader());
  }

  @Test
  void findsProvidersByName() throws Exception {
    CloudProviders providers = CloudProviders.discover(registering(Alpha.class, Beta.class));

    assertThat(providers.names()).containsExactly("alpha", "beta");
    assertThat(providers.create("beta", Optional.empty()).providerName()).isEqualTo("beta");
  }

  @Test
  void anUnknownNameListsTheKnownOnes() throws Exception {
    CloudProviders providers = CloudProviders.discover(registering(Alpha.class, Beta.class));

    assertThatThrownBy(() -> providers.create("gamma", Optional.empty()))
        .isInstanceOf(UnknownCloudProviderException.class)
        .hasMessage("unknown cloud provider \"gamma\"; known providers: alpha, beta");
  }

  @Test
  void aDuplicateNameIsAStartupError() throws Exception {
    ClassLoader loader = registering(Alpha.class, AnotherAlpha.class);

    assertThatThrownBy(() -> CloudProviders.discover(loader))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cloud provider \"alpha\" is registered twice")
        .hasMessageContaining(Alpha.class.getName())
        .hasMessageContaining(AnotherAlpha.class.getName());
  }
}
