package io.ccm4j.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Samples ccm4j's heap from its /metrics until stopped; the peak in MiB. */
final class HeapSampler {
  private static final Pattern HEAP =
      Pattern.compile("^jvm_memory_used_bytes\\{area=\"heap\",[^}]*\\} (\\S+)$", Pattern.MULTILINE);
  private final HttpClient http;
  private final int port;
  private final AtomicLong peak = new AtomicLong();
  private volatile boolean running = true;
  private Thread thread;

  HeapSampler(HttpClient http, int port) {
    this.http = http;
    this.port = port;
  }

  HeapSampler start() {
    thread = Thread.ofPlatform().daemon().name("heap-sampler").start(this::loop);
    return this;
  }

  private void loop() {
    while (running) {
      try {
        String metrics =
            http.send(
                    HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/metrics"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher matcher = HEAP.matcher(metrics);
        long heap = 0;
        while (matcher.find()) {
          heap += (long) Double.parseDouble(matcher.group(1));
        }
        long sample = heap;
        peak.accumulateAndGet(sample, Math::max);
        // Every second: each scrape costs the manager CPU (the metrics text, a TLS request).
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        // the manager is busy; try again
      }
    }
  }

  double stop() {
    running = false;
    thread.interrupt();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return peak.get() / 1048576.0;
  }
}
