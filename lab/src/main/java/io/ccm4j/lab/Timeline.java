package io.ccm4j.lab;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened during a lab run, and when. The clock's zero is the moment the cluster's manifests
 * are applied ({@link #startBootstrap}): the setup before it (the control plane starting, kubelets
 * registering) shows at negative times, so "bootstrapped in" counts the bootstrap alone.
 */
public final class Timeline {

  /** One moment: who, what, when (seconds from the bootstrap's start; negative during setup). */
  public record Entry(double seconds, String subject, String what) {}

  private record Moment(long nanos, String subject, String what) {}

  private final List<Moment> moments = new ArrayList<>();
  private volatile long zero = System.nanoTime();

  public synchronized void record(String subject, String what) {
    moments.add(new Moment(System.nanoTime(), subject, what));
  }

  /** From now on the clock counts the bootstrap; what was recorded before is setup. */
  public void startBootstrap() {
    zero = System.nanoTime();
  }

  public synchronized List<Entry> entries() {
    long origin = zero;
    return moments.stream()
        .map(m -> new Entry((m.nanos() - origin) / 1e9, m.subject(), m.what()))
        .toList();
  }

  /** Seconds since the bootstrap started. */
  public double elapsedSeconds() {
    return (System.nanoTime() - zero) / 1e9;
  }
}
