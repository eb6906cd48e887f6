package io.ccm4j.app.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class CloudControllerManagerTest {

  /** A provider whose close() never returns (an SDK waiting on a connection that is gone). */
  private static final class HangingOnClose implements CloudProvider {
    final AtomicBoolean initialised = new AtomicBoolean();
    final CountDownLatch closing = new CountDownLatch(1);

    @Override
    public String providerName() {
      return "hanging";
    }

    @Override
    public void initialize(io.ccm4j.cloudprovider.ProviderContext context) {
      initialised.set(true);
    }

    @Override
    public void close() {
      closing.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void aProviderWhoseCloseHangsDoesNotHoldTheStopPastItsBound() throws Exception {
    HangingOnClose cloud = new HangingOnClose();
    // No controller, no leader election, no serving: nothing reaches this address.
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:9").build())
            .build()) {
      CloudControllerManager manager =
          CloudControllerManager.builder(client)
              .cloud(cloud)
              .selection(ControllerSelection.parse(List.of("*"), Set.of()))
              .controllers(ControllerSettings.defaults())
              .registry(List.of())
              .exit(code -> {})
              .build();
      manager.start();
      await().atMost(Duration.ofSeconds(10)).untilTrue(cloud.initialised);

      long started = System.nanoTime();
      assertTimeoutPreemptively(Duration.ofSeconds(15), manager::close);
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(cloud.closing.getCount()).as("the provider was closed").isZero();
      assertThat(took)
          .isGreaterThanOrEqualTo(CloudControllerManager.CLOSE_TIMEOUT.minusMillis(100))
          .isLessThan(CloudControllerManager.CLOSE_TIMEOUT.plusSeconds(2));
    }
  }

  /**
   * The process series every Prometheus client exports, upstream's manager too, by the names
   * dashboards and alerts read: CPU, start time (restarts), file descriptors, memory.
   */
  @Test
  void metricsHaveTheProcessSeriesOfEveryPrometheusClient() {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:9").build())
            .build()) {
      CloudControllerManager manager =
          CloudControllerManager.builder(client)
              .cloud(new HangingOnClose())
              .selection(ControllerSelection.parse(List.of("*"), Set.of()))
              .controllers(ControllerSettings.defaults())
              .registry(List.of())
              .exit(code -> {})
              .build();
      PrometheusMeterRegistry metrics = (PrometheusMeterRegistry) manager.metrics();
      String scrape = metrics.scrape();

      assertThat(scrape)
          .contains(
              "# TYPE process_cpu_seconds_total counter",
              "# TYPE process_start_time_seconds gauge",
              "# TYPE process_open_fds gauge",
              "# TYPE process_max_fds gauge",
              "# TYPE process_resident_memory_bytes gauge",
              "# TYPE process_virtual_memory_bytes gauge");
      double started = metrics.get("process.start.time").gauge().value();
      long jvmStarted = ManagementFactory.getRuntimeMXBean().getStartTime();
      assertThat(started).isCloseTo(jvmStarted / 1000.0, within(0.001));
      assertThat(metrics.get("process.cpu").functionCounter().count()).isPositive();
      assertThat(metrics.get("process.open.fds").gauge().value()).isPositive();
      assertThat(metrics.get("process.resident.memory").gauge().value()).isGreaterThan(1024 * 1024);
    }
  }
}
