package io.ccm4j.bench;

import io.ccm4j.runtime.serving.LocalManagerHttp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients flooding a manager's serving port until stopped: half send anonymous requests for random
 * paths, half requests for {@code /metrics} with random bearer tokens.
 */
final class ServingPortFlood {
  private final Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
  private final AtomicBoolean flooding = new AtomicBoolean(true);
  private final List<Thread> clients = new ArrayList<>();

  private ServingPortFlood() {}

  /** Starts {@code clients} clients against the serving port {@code port} on loopback. */
  static ServingPortFlood start(int clients, int port) {
    ServingPortFlood flood = new ServingPortFlood();
    HttpClient http = LocalManagerHttp.client();
    String base = "https://127.0.0.1:" + port;
    for (int i = 0; i < clients; i++) {
      boolean withToken = i % 2 == 0;
      flood.clients.add(
          Thread.ofPlatform().name("flood-" + i).start(() -> flood.send(http, base, withToken)));
    }
    return flood;
  }

  private void send(HttpClient http, String base, boolean withToken) {
    while (flooding.get()) {
      String random = UUID.randomUUID().toString();
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(base + (withToken ? "/metrics" : "/x" + random)))
              .timeout(Duration.ofSeconds(5));
      if (withToken) {
        request.header("Authorization", "Bearer " + random);
      }
      int status;
      try {
        status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
      } catch (Exception e) {
        status = -1;
      }
      answers.computeIfAbsent(status, code -> new AtomicInteger()).getAndIncrement();
    }
  }

  /** Stops every client and waits for it; the answers counted by HTTP status, -1 for none. */
  Map<Integer, Integer> stop() throws InterruptedException {
    flooding.set(false);
    for (Thread client : clients) {
      client.join();
    }
    Map<Integer, Integer> counted = new TreeMap<>();
    answers.forEach((code, count) -> counted.put(code, count.get()));
    return counted;
  }
}
