package io.ccm4j.controllers.cloudnodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.NotImplementedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CancellationException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CloudNodeLifecycleMetricsTest {

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(null, false, "success"),
        Arguments.of(null, true, "instance_not_found"),
        Arguments.of(new InstanceNotFoundException(), false, "instance_not_found"),
        Arguments.of(new NotImplementedException(), false, "not_implemented"),
        Arguments.of(new CloudException("quota exceeded"), false, "error"),
        Arguments.of(
            new CloudException("interrupted", new InterruptedException()), false, "canceled"),
        Arguments.of(
            new CloudException("call broken", new ClosedByInterruptException()), false, "canceled"),
        Arguments.of(
            new CloudException("call broken", new InterruptedIOException()), false, "canceled"),
        Arguments.of(
            new CloudException("call dropped", new CancellationException()), false, "canceled"),
        Arguments.of(
            new CloudException("read timed out", new SocketTimeoutException()), false, "error"));
  }

  /**
   * Upstream's results ({@code observeInstanceOp}), {@code canceled} included: a call the stop
   * interrupted is no cloud error, and an alert on {@code error} must not fire at every stop.
   */
  @ParameterizedTest
  @MethodSource("failures")
  void eachAnswerCountsByUpstreamsResult(
      CloudException failure, boolean notFound, String expected) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    new CloudNodeLifecycleMetrics(registry)
        .observe(CloudNodeLifecycleMetrics.OPERATION_EXISTS, failure, notFound);

    assertThat(results(registry)).containsExactly(expected);
  }

  /** A call that failed while the pass's thread is interrupted (the controller stops). */
  @Test
  void aFailureOnAnInterruptedThreadIsCanceled() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CloudNodeLifecycleMetrics metrics = new CloudNodeLifecycleMetrics(registry);

    Thread.currentThread().interrupt();
    try {
      metrics.observe(
          CloudNodeLifecycleMetrics.OPERATION_SHUTDOWN, new CloudException("aborted"), false);
    } finally {
      Thread.interrupted();
    }

    assertThat(results(registry)).containsExactly("canceled");
  }

  private static Stream<String> results(SimpleMeterRegistry registry) {
    return registry.find("cloud_node_lifecycle_controller_cloud_provider_calls").counters().stream()
        .filter(c -> c.count() > 0)
        .map((Counter c) -> c.getId().getTag("result"));
  }
}
