package io.ccm4j.runtime.controller;

/**
 * A running controller. The manager constructs every enabled controller (which registers its
 * informer handlers), starts the informers, waits for their caches, and only then calls {@link
 * #start}.
 */
public interface Controller extends AutoCloseable {

  /**
   * The canonical name, as in {@code --controllers} and the health check {@code /healthz/<name>}.
   */
  String name();

  /** Starts the workers and periodic loops; returns at once. */
  void start();

  /**
   * Whether the controller is working as it should; empty when healthy, else what is wrong. Served
   * as the controller's health check.
   */
  default java.util.Optional<String> health() {
    return java.util.Optional.empty();
  }

  /** Stops the workers and waits for them to finish the key in hand. */
  @Override
  void close() throws InterruptedException;
}
