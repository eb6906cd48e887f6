package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InformerWatchdogTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration BOUND = Duration.ofSeconds(60);

  private final AtomicReference<Instant> now = new AtomicReference<>(T0);
  private final List<String> stops = new ArrayList<>();
  private final InformerWatchdog watchdog =
      new InformerWatchdog(
          BOUND, (resource, cause) -> stops.add(resource + ": " + cause.getMessage()), now::get);

  @ParameterizedTest(name = "without a watch for {0} s: stalled {1}")
  @CsvSource({
    "-1, false", // watching
    "0, false",
    "59, false",
    "60, false", // the bound itself is still allowed
    "61, true",
    "3600, true"
  })
  void isStalled(long secondsWithoutWatch, boolean stalled) {
    Instant since = secondsWithoutWatch < 0 ? null : T0.minusSeconds(secondsWithoutWatch);

    assertThat(InformerWatchdog.isStalled(since, T0, BOUND)).isEqualTo(stalled);
  }

  @Test
  void everyFailureIsRetriedAsUpstreamsReflectorDoes() {
    FakeInformer nodes = new FakeInformer(Node.class);
    watchdog.watch(nodes.informer);

    ExceptionHandler handler = nodes.handler.get();
    assertThat(handler.retryAfterException(true, new WatcherException("Couldn't deserialize")))
        .isTrue();
    assertThat(handler.retryAfterException(false, new KubernetesClientException("Forbidden")))
        .isTrue();
    assertThat(handler.retryAfterException(true, new IllegalStateException("exec plugin failed")))
        .isTrue();
  }

  @Test
  void anInformerWithoutAWatchForLongerThanTheBoundIsNamedWithItsLastFailureUntilItWatches() {
    FakeInformer nodes = new FakeInformer(Node.class);
    FakeInformer leases = new FakeInformer(Lease.class);
    watchdog.watch(nodes.informer);
    watchdog.watch(leases.informer);
    nodes.watching = true;
    leases.watching = true;
    watchdog.sample();

    nodes.watching = false;
    nodes.handler.get().retryAfterException(true, new KubernetesClientException("Forbidden\nmore"));
    now.set(T0.plusSeconds(10));
    watchdog.sample(); // without a watch from here on
    now.set(T0.plusSeconds(70));
    assertThat(watchdog.health(List.of(nodes.informer, leases.informer))).isEmpty();

    now.set(T0.plusSeconds(71));
    assertThat(watchdog.health(List.of(leases.informer))).isEmpty();
    assertThat(watchdog.health(List.of(nodes.informer, leases.informer)))
        .hasValue(
            "informer Node has not been watching since 2026-01-01T10:00:10Z (1m1s, more than"
                + " 1m0s); last failure: KubernetesClientException: Forbidden");

    nodes.watching = true;
    assertThat(watchdog.health(List.of(nodes.informer))).isEmpty();
  }

  @Test
  void anInformerThatNeverWatchedCountsFromWhenItIsWatched() {
    FakeInformer nodes = new FakeInformer(Node.class);
    watchdog.watch(nodes.informer);

    now.set(T0.plusSeconds(60));
    assertThat(watchdog.health(List.of(nodes.informer))).isEmpty();
    now.set(T0.plusSeconds(61));
    assertThat(watchdog.health(List.of(nodes.informer)))
        .hasValueSatisfying(reason -> assertThat(reason).startsWith("informer Node has not"));
  }

  @Test
  void anInformerThatStopsOnItsOwnIsReportedAndOneStoppedByItsOwnerOrAfterCloseIsNot() {
    FakeInformer nodes = new FakeInformer(Node.class);
    FakeInformer leases = new FakeInformer(Lease.class);
    FakeInformer late = new FakeInformer(Node.class);
    watchdog.watch(nodes.informer);
    watchdog.watch(leases.informer);
    watchdog.watch(late.informer);

    nodes.stopped.completeExceptionally(new WatcherException("Exhausted reconnects"));
    leases.stopped.complete(null);
    watchdog.close();
    late.stopped.completeExceptionally(new WatcherException("after close"));

    assertThat(stops).containsExactly("Node: Exhausted reconnects");
  }

  @Test
  void anInformerWhoseWatchCannotBeReadCountsAsNotWatching() {
    FakeInformer nodes = new FakeInformer(Node.class);
    watchdog.watch(nodes.informer);
    nodes.unreadable = true;

    watchdog.sample();
    now.set(T0.plusSeconds(61));

    assertThat(watchdog.health(List.of(nodes.informer))).isPresent();
  }

  @Test
  void theBoundIsPositive() {
    assertThatThrownBy(() -> new InformerWatchdog(Duration.ZERO, (r, c) -> {}, now::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
  }

  /** The few methods of an informer the watchdog uses. */
  private static final class FakeInformer {
    final AtomicReference<ExceptionHandler> handler = new AtomicReference<>();
    final CompletableFuture<Void> stopped = new CompletableFuture<>();
    volatile boolean watching;
    volatile boolean unreadable;
    final SharedIndexInformer<?> informer;

    FakeInformer(Class<?> kind) {
      informer =
          (SharedIndexInformer<?>)
              Proxy.newProxyInstance(
                  getClass().getClassLoader(),
                  new Class<?>[] {SharedIndexInformer.class},
                  (proxy, method, args) ->
                      switch (method.getName()) {
                        case "getApiTypeClass" -> kind;
                        case "isWatching" -> {
                          if (unreadable) {
                            throw new NullPointerException("watchFuture");
                          }
                          yield watching;
                        }
                        case "stopped" -> stopped;
                        case "exceptionHandler" -> {
                          handler.set((ExceptionHandler) args[0]);
                          yield proxy;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        case "toString" -> "informer of " + kind.getSimpleName();
                        default -> throw new UnsupportedOperationException(method.getName());
                      });
    }
  }
}
