package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.resolver.DefaultAddressResolverGroup;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.spi.resolver.ResolverProvider;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
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

  /**
   * Two transports made at once (tests, the lab and the bench make several): the second must not
   * take the first's setting of the JVM-wide switch for the operator's and then be made after the
   * first cleared it. The first is held while it is made; the second starts meanwhile and is made
   * only after the first is done.
   */
  @Test
  void twoTransportsMadeAtOnceBothResolveAsTheJdkDoes() throws Exception {
    CountDownLatch firstMaking = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CountDownLatch secondMaking = new CountDownLatch(1);
    CountDownLatch releaseSecond = new CountDownLatch(1);
    AtomicReference<SharedTransport> first = new AtomicReference<>();
    AtomicReference<SharedTransport> second = new AtomicReference<>();

    Thread firstThread =
        Thread.ofPlatform()
            .start(() -> first.set(new SharedTransport(heldUntil(firstMaking, releaseFirst))));
    assertThat(firstMaking.await(30, TimeUnit.SECONDS)).isTrue();
    Thread secondThread =
        Thread.ofPlatform()
            .start(() -> second.set(new SharedTransport(heldUntil(secondMaking, releaseSecond))));
    // The second has read the switch and is being made, or waits for the first to be made.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> secondMaking.getCount() == 0 || secondThread.getState() == Thread.State.BLOCKED);
    releaseFirst.countDown();
    firstThread.join(Duration.ofSeconds(30));
    releaseSecond.countDown();
    secondThread.join(Duration.ofSeconds(30));

    try (SharedTransport one = first.get();
        SharedTransport other = second.get()) {
      assertThat(one.nameResolution()).isSameAs(DefaultAddressResolverGroup.INSTANCE);
      assertThat(other.nameResolution()).isSameAs(DefaultAddressResolverGroup.INSTANCE);
    }
    assertThat(System.getProperty(ResolverProvider.DISABLE_DNS_RESOLVER_PROP_NAME)).isNull();
  }

  /** Makes the Vert.x once {@code release} is counted down, after saying it is being made. */
  private static Function<VertxOptions, Vertx> heldUntil(
      CountDownLatch making, CountDownLatch release) {
    return options -> {
      making.countDown();
      try {
        if (!release.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("not released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return Vertx.vertx(options);
    };
  }
}
