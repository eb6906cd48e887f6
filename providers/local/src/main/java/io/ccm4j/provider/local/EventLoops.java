package io.ccm4j.provider.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@link EventLoop} per core; each TCP listener has a socket on every loop (SO_REUSEPORT), so
 * the kernel spreads connections over them.
 */
final class EventLoops implements AutoCloseable {

  private final List<EventLoop> loops = new ArrayList<>();

  EventLoops(int count) {
    try {
      for (int i = 0; i < count; i++) {
        loops.add(new EventLoop("local-cloud-io-" + i));
      }
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot open a selector", e);
    }
  }

  List<EventLoop> all() {
    return List.copyOf(loops);
  }

  @Override
  public void close() {
    loops.forEach(EventLoop::close);
  }
}
