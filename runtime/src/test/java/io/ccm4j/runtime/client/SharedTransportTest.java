package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SharedTransportTest {

  @Test
  void oneEventLoopPerProcessorNotVertxsTwo() {
    try (SharedTransport transport = new SharedTransport()) {
      assertThat(transport.eventLoops()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }
  }
}
