package io.ccm4j.simulator.proxy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Virtual threads of one simulated kube-proxy, counted so {@code close()} can wait for them. */
final class ProxyThreads {

  private final AtomicInteger live = new AtomicInteger();
  private final Object lock = new Object();

  void start(String name, Runnable task) {
    start(Thread.ofVirtual().name(name), task);
  }

  /** A platform thread, for a selector loop that lives as long as its server. */
  Thread startPlatform(String name, Runnable task) {
    return start(Thread.ofPlatform().daemon().name(name), task);
  }

  private Thread start(Thread.Builder builder, Runnable task) {
    live.incrementAndGet();
    try {
      return builder.start(
          () -> {
            try {
              task.run();
            } finally {
              if (live.decrementAndGet() == 0) {
                synchronized (lock) {
                  lock.notifyAll();
                }
              }
            }
          });
    } catch (RuntimeException | Error e) {
      live.decrementAndGet();
      throw e;
    }
  }

  int live() {
    return live.get();
  }

  boolean awaitNone(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (live.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }
}
