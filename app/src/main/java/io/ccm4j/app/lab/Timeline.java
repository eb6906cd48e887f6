package io.ccm4j.app.lab;

import java.util.ArrayList;
import java.util.List;

/** What happened during a lab run, in seconds since it started. */
public final class Timeline {

  /** One moment: who, what, when. */
  public record Entry(double seconds, String subject, String what) {}

  private final long start = System.nanoTime();
  private final List<Entry> entries = new ArrayList<>();

  public synchronized void record(String subject, String what) {
    entries.add(new Entry((System.nanoTime() - start) / 1e9, subject, what));
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(entries);
  }

  public double elapsedSeconds() {
    return (System.nanoTime() - start) / 1e9;
  }
}
