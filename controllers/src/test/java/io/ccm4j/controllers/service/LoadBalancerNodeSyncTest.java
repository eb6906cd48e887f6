package io.ccm4j.controllers.service;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoadBalancerNodeSyncTest {

  private final Logger logger =
      (Logger) LoggerFactory.getLogger(ServiceLoadBalancerController.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private Level level;

  @BeforeEach
  void capture() {
    level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
    logger.setLevel(level);
  }

  /**
   * S15 step 5 logs each pass's count; on a cluster without LoadBalancer Services every node change
   * would log "Successfully updated 0 out of 0 load balancers" at INFO: that is DEBUG.
   */
  @Test
  void S15_aPassWithNoLoadBalancerToUpdateIsNotLoggedAtInfo() throws InterruptedException {
    emptyClustersSync(new SimpleMeterRegistry()).pass();

    assertThat(logged.list)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(Level.DEBUG);
              assertThat(e.getFormattedMessage())
                  .startsWith("Successfully updated 0 out of 0 load balancers");
            });
  }

  /**
   * Upstream observes {@code service_controller_nodesync_latency_seconds} for every node-sync pass
   * (a deferred Observe in {@code syncNodes}), one over no load balancer too: the histogram's count
   * is the number of passes, on a cluster without LoadBalancer Services as on any other.
   */
  @Test
  void S15_aPassWithNoLoadBalancerToUpdateIsTimedAsEveryPass() throws InterruptedException {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LoadBalancerNodeSync sync = emptyClustersSync(registry);

    sync.pass();
    sync.pass();

    assertThat(registry.get("service_controller_nodesync_latency").summary().count()).isEqualTo(2);
  }

  private static LoadBalancerNodeSync emptyClustersSync(SimpleMeterRegistry registry) {
    Map<String, io.fabric8.kubernetes.api.model.Service> synced = new HashMap<>();
    return new LoadBalancerNodeSync(
        null,
        null,
        "kubernetes",
        null,
        new ServiceControllerMetrics(registry),
        null,
        null,
        null,
        null,
        synced,
        new HashMap<>(),
        new HashMap<>());
  }
}
