package io.ccm4j.runtime.cloud;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stops a manager's cloud calls once it may no longer lead, as the client {@code Fence} stops its
 * API requests: from {@link #close()} on no cloud call starts (a worker between two calls of a sync
 * gets a {@link CloudException} instead of the second), and the writes already in flight are
 * tracked, so the manager can wait for them before another instance may lead. One writer per cloud
 * object: upstream's manager exits at once and leaves a write in flight to race the next leader's.
 */
public final class CloudFence {

  private final Object lock = new Object();
  private final Map<Long, String> writesInFlight = new LinkedHashMap<>();
  private long nextId;
  private boolean closed;

  /** A call that started; {@link #close()} it when the call returns. */
  public interface Call extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * A cloud call about to start.
   *
   * @param description what it does and to what ({@code EnsureLoadBalancer default/web})
   * @param write whether it changes the cloud: writes are waited for by {@link #awaitWrites}
   * @throws NotLeadingException when the fence is closed: the call must not start
   */
  public Call enter(String description, boolean write) throws CloudException {
    synchronized (lock) {
      if (closed) {
        throw new NotLeadingException(description);
      }
      if (!write) {
        return () -> {};
      }
      long id = nextId++;
      writesInFlight.put(id, description);
      return () -> {
        synchronized (lock) {
          writesInFlight.remove(id);
          lock.notifyAll();
        }
      };
    }
  }

  /** From now on no cloud call starts; the writes in flight go on. */
  public void close() {
    synchronized (lock) {
      closed = true;
    }
  }

  public boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  /** The writes in flight, oldest first. */
  public List<String> writesInFlight() {
    synchronized (lock) {
      return new ArrayList<>(writesInFlight.values());
    }
  }

  /**
   * Waits until no write is in flight, at most {@code timeout}.
   *
   * @return the writes still in flight then: empty when every write has returned
   */
  public List<String> awaitWrites(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    synchronized (lock) {
      while (!writesInFlight.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
      return new ArrayList<>(writesInFlight.values());
    }
  }

  /**
   * The provider behind this fence. A throttled provider keeps its throttle in front, so that the
   * fence is checked after a call's wait for a token: a call that waited past the fence does not go
   * out.
   */
  public CloudProvider guard(CloudProvider provider) {
    if (provider instanceof ThrottledCloudProvider throttled) {
      return throttled.inFrontOf(inner -> new FencedCloudProvider(inner, this));
    }
    return new FencedCloudProvider(provider, this);
  }
}
