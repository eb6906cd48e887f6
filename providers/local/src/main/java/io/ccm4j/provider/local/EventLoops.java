package io.ccm4j.provider.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** One {@link EventLoop} per core; connections are spread over them round robin. */
final class EventLoops implements AutoCloseable {

  private final List<EventLoop> loops = new ArrayList<>();
  private final AtomicInteger next = new AtomicInteger();

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

  EventLoop next() {
    return loops.get(Math.floorMod(next.getAndIncrement(), loops.size()));
  }

  @Override
  public void close() {
    loops.forEach(EventLoop::close);
  }
}
