package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.resolver.DefaultAddressResolverGroup;
import io.vertx.core.spi.resolver.ResolverProvider;
import org.junit.jupiter.api.Test;

class SharedTransportTest {

  @Test
  void oneEventLoopPerProcessorNotVertxsTwo() {
    try (SharedTransport transport = new SharedTransport()) {
      assertThat(transport.eventLoops()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }
  }

  @Test
  void resolvesHostNamesAsTheJdkDoesAndLeavesNoPropertyBehind() {
    try (SharedTransport transport = new SharedTransport()) {
      assertThat(transport.nameResolution()).isSameAs(DefaultAddressResolverGroup.INSTANCE);
    }
    assertThat(System.getProperty(ResolverProvider.DISABLE_DNS_RESOLVER_PROP_NAME)).isNull();
  }
}
