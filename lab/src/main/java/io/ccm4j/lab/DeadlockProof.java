package io.ccm4j.lab;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * When the lab may call a bootstrap deadlocked before its timeout: the live analysis names a
 * dependency cycle ({@code deadlock: ...}) and nothing the lab watches has changed for {@link
 * #WINDOW} since. A cycle alone is not enough: a pod may be pending for a moment before the node it
 * needs is ready, and a change (a node initialised, a pod scheduled or started, anything the
 * timeline records) means the cluster still moves. The caller gives the time.
 */
final class DeadlockProof {

  /**
   * How long a cycle must stand with nothing changing. Each party of a cycle acts within a second
   * or two (the scheduler retries an unschedulable pod on every node change, the lab's kubelets and
   * CNI look every 200 ms, the managers initialise a node in well under a second): ten seconds of
   * stillness leaves a wide margin, and every deadlock scenario has its verdict within 30 s.
   */
  static final int WINDOW_SECONDS = 10;

  static final Duration WINDOW = Duration.ofSeconds(WINDOW_SECONDS);

  private final long windowNanos;
  private Object state;
  private List<String> cycles = List.of();
  private long since;

  DeadlockProof() {
    this(WINDOW);
  }

  DeadlockProof(Duration window) {
    this.windowNanos = window.toNanos();
  }

  /**
   * One look at the cluster.
   *
   * @param nanos the time of the look ({@link System#nanoTime()})
   * @param state what the lab watches (progress, timeline); any change restarts the window
   * @param cycles the cycles the live analysis names now; empty when none
   * @return whether the deadlock is proven: the same cycles and state for the whole window
   */
  boolean look(long nanos, Object state, List<String> cycles) {
    if (cycles.isEmpty()) {
      this.cycles = List.of();
      this.state = null;
      return false;
    }
    if (!cycles.equals(this.cycles) || !Objects.equals(state, this.state)) {
      this.cycles = List.copyOf(cycles);
      this.state = state;
      since = nanos;
      return false;
    }
    return nanos - since >= windowNanos;
  }

  /** The cycles of the last look, while they stand; empty when none. */
  List<String> cycles() {
    return cycles;
  }
}
