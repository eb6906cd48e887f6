package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.ccm4j.runtime.client.ServiceAccountClients.IssuedToken;
import io.ccm4j.runtime.client.ServiceAccountClients.RenewedToken;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ServiceAccountClientsTest {

  @Test
  void aDueTokenIsRenewedOnItsOwnThreadWhileTheCallerGetsTheCurrentOneAtOnce() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T12:00:00Z"));
    AtomicInteger issued = new AtomicInteger();
    CountDownLatch apiServerAnswers = new CountDownLatch(1);
    ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
    try {
      RenewedToken token =
          new RenewedToken(
              "node-controller",
              () -> {
                int n = issued.incrementAndGet();
                if (n > 1) {
                  // The renewal's TokenRequest hangs until the test lets it answer.
                  try {
                    apiServerAnswers.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
                return new IssuedToken("token-" + n, now.get().plusSeconds(3600));
              },
              renewer,
              now::get);
      token.start();
      assertThat(token.getToken()).isEqualTo("token-1");

      now.set(now.get().plus(Duration.ofMinutes(49))); // past 80 % of the hour

      // From fabric8's scheduler thread or an event loop: it must not wait for the API server.
      String during = assertTimeoutPreemptively(Duration.ofSeconds(1), token::getToken);
      assertThat(during).isEqualTo("token-1");
      await().atMost(Duration.ofSeconds(5)).until(() -> issued.get() == 2);
      assertThat(token.getToken()).isEqualTo("token-1");

      apiServerAnswers.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> token.getToken().equals("token-2"));
      assertThat(issued).hasValue(2);
    } finally {
      renewer.shutdownNow();
    }
  }

  /**
   * A refused token (the ServiceAccount was deleted, its token revoked) is renewed at once, not at
   * 80 % of its hour; a refusal of a token younger than the retry period is not.
   */
  @Test
  void aRefusedTokenIsRenewedAtOnceUnlessItIsNew() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T12:00:00Z"));
    AtomicInteger issued = new AtomicInteger();
    ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
    try {
      RenewedToken token =
          new RenewedToken(
              "node-controller",
              () ->
                  new IssuedToken("token-" + issued.incrementAndGet(), now.get().plusSeconds(3600)),
              renewer,
              now::get);
      token.start();

      token.refused();
      Thread.sleep(200);
      assertThat(token.getToken()).isEqualTo("token-1");

      now.set(now.get().plus(RenewedToken.RETRY));
      token.refused();
      await().atMost(Duration.ofSeconds(5)).until(() -> token.getToken().equals("token-2"));
      assertThat(issued).hasValue(2);
    } finally {
      renewer.shutdownNow();
    }
  }
}
