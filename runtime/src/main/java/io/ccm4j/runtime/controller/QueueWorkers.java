package io.ccm4j.runtime.controller;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of every queue-driven controller: {@code workers} threads take keys, reconcile
 * them, and forget them on success or requeue them on failure (upstream's {@code processNextItem}).
 *
 * <p>A bug hit by one key (any {@link Error} but the JVM's own) is logged and the key backs off:
 * upstream's worker would crash the process and the pod restart, here one bad object cannot stop a
 * controller. An error of the JVM itself ({@link VirtualMachineError} but a stack overflow, which
 * unwinds cleanly) ends the worker: {@link #health()} reports it and the error reaches the thread's
 * uncaught exception handler, which in {@code ccm4j run} ends the process.
 */
public final class QueueWorkers<K> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(QueueWorkers.class);

  private final String controllerName;
  private final WorkQueue<K> queue;
  private final Reconciler<K> reconciler;
  private final int workers;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicReference<Throwable> fatal = new AtomicReference<>();
  private volatile boolean closing;

  public QueueWorkers(
      String controllerName, WorkQueue<K> queue, Reconciler<K> reconciler, int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException(
          controllerName + ": workers must be at least 1, got " + workers);
    }
    this.controllerName = controllerName;
    this.queue = queue;
    this.reconciler = reconciler;
    this.workers = workers;
  }

  public synchronized void start() {
    if (!threads.isEmpty()) {
      throw new IllegalStateException(controllerName + ": workers already started");
    }
    for (int i = 0; i < workers; i++) {
      threads.add(Thread.ofPlatform().name(controllerName + "-worker-" + i).start(this::runWorker));
    }
  }

  private void runWorker() {
    try {
      while (processNextItem()) {
        // keep going until the queue shuts down
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (VirtualMachineError e) {
      fatal.compareAndSet(null, e);
      log.error(
          "{}: worker {} stops: {}",
          controllerName,
          Thread.currentThread().getName(),
          e.toString());
      throw e;
    }
  }

  /**
   * Empty while every worker runs (or the workers were closed); otherwise which worker stopped and
   * why. Served in the controller's health check, so a controller that does nothing shows red.
   */
  public Optional<String> health() {
    if (closing) {
      return Optional.empty();
    }
    List<Thread> started;
    synchronized (this) {
      started = List.copyOf(threads);
    }
    List<String> stopped =
        started.stream().filter(thread -> !thread.isAlive()).map(Thread::getName).toList();
    if (stopped.isEmpty()) {
      return Optional.empty();
    }
    Throwable cause = fatal.get();
    return Optional.of(
        "%s stopped%s".formatted(String.join(", ", stopped), cause == null ? "" : ": " + cause));
  }

  /**
   * Processes one key; false once the queue is shut down. Visible for tests that drive one step.
   */
  boolean processNextItem() throws InterruptedException {
    Optional<K> next = queue.take();
    if (next.isEmpty()) {
      return false;
    }
    K key = next.get();
    try {
      reconciler.reconcile(key);
      queue.forget(key);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      Optional<RetryAfterException> retryAfter = RetryAfterException.in(e);
      if (retryAfter.isPresent()) {
        // As upstream's service controller (processNextServiceItem): a warning, in its words.
        log.warn(
            "{}: error processing {} (retrying in {}): {}",
            controllerName,
            key,
            GoDurations.format(retryAfter.get().retryAfter()),
            describe(e));
        queue.addAfter(key, retryAfter.get().retryAfter());
      } else {
        log.warn("{}: error syncing {}, requeuing: {}", controllerName, key, describe(e));
        queue.addRateLimited(key);
      }
    } catch (StackOverflowError e) {
      log.error("{}: bug while syncing {}, requeuing", controllerName, key, e);
      queue.addRateLimited(key);
    } catch (VirtualMachineError e) {
      throw e; // the JVM's own: this worker ends (runWorker)
    } catch (Error e) {
      log.error("{}: bug while syncing {}, requeuing", controllerName, key, e);
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
    return true;
  }

  /**
   * The failure in words: a request the API server refused by its answer, a transport failure by
   * its cause (fabric8 says "An error has occurred."), anything else by its own message, which
   * carries what the sync was doing.
   */
  private static String describe(Throwable error) {
    String message = error.getMessage();
    return error instanceof KubernetesClientException || message == null || message.isBlank()
        ? KubernetesErrors.reason(error)
        : message;
  }

  /** Shuts the queue down and waits for every worker to finish its current key. */
  @Override
  public void close() throws InterruptedException {
    closing = true;
    queue.close();
    List<Thread> started;
    synchronized (this) {
      started = List.copyOf(threads);
    }
    for (Thread thread : started) {
      thread.join();
    }
  }
}
