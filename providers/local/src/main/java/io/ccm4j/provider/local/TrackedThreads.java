package io.ccm4j.provider.local;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts virtual threads and counts the live ones, so {@link LocalCloud#close()} can wait until
 * every accept loop, pump and probe has ended (virtual threads are invisible to thread dumps of
 * {@code Thread.getAllStackTraces}).
 */
final class TrackedThreads {

  private final AtomicInteger live = new AtomicInteger();
  private final Object lock = new Object();

  Thread start(String name, Runnable task) {
    live.incrementAndGet();
    try {
      return Thread.ofVirtual()
          .name(name)
          .start(
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

  /** Waits until no thread started here is alive; returns whether that happened in time. */
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
