package io.ccm4j.provider.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector thread carrying TCP listeners and connections without a thread per connection
 * (accept, connect and splice are non-blocking), as HAProxy or nginx do: on two cores, thread
 * hand-offs per connection cost more than the forwarding itself. Other threads reach a loop's
 * channels only through {@link #execute}.
 */
final class EventLoop implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);
  private static final long TICK_MILLIS = 100;

  /** What a registered channel does when it is ready. */
  interface Handler {
    void ready(SelectionKey key) throws IOException;

    /** Called when {@link #ready} threw: end whatever the key belongs to. */
    void failed(IOException e);
  }

  private final Selector selector;
  private final Thread thread;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final ByteBuffer scratch = ByteBuffer.allocateDirect(64 * 1024);
  private final List<Channel> toClose = new ArrayList<>();
  private volatile boolean running = true;

  EventLoop(String name) throws IOException {
    this.selector = Selector.open();
    this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
    thread.start();
  }

  Selector selector() {
    return selector;
  }

  /** A buffer for the loop's thread only: what is read is written on before the next read. */
  ByteBuffer scratch() {
    return scratch;
  }

  boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  /** Runs the task on the loop's thread (at once when already there). */
  void execute(Runnable task) {
    if (inLoop()) {
      task.run();
      return;
    }
    tasks.add(task);
    selector.wakeup();
  }

  /** Runs the task on the loop and waits for it (at most 5 s). */
  void executeAndWait(Runnable task) {
    if (inLoop() || !running) {
      task.run();
      return;
    }
    CountDownLatch done = new CountDownLatch(1);
    execute(
        () -> {
          try {
            task.run();
          } finally {
            done.countDown();
          }
        });
    try {
      done.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Closes a channel whose key was cancelled once the selector has dropped the key (after the next
   * select): closing a still-registered channel costs the JDK an extra getsockopt and shutdown per
   * socket. Loop thread only.
   */
  void closeAfterSelect(Channel channel) {
    toClose.add(channel);
  }

  private void closePending() {
    for (Channel channel : toClose) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    toClose.clear();
  }

  /** Flushes cancelled keys, so their channels are really closed. */
  void flushCancelled() {
    try {
      selector.selectNow();
    } catch (IOException ignored) {
      // the selector is closing
    }
  }

  private void run() {
    while (running) {
      try {
        if (toClose.isEmpty()) {
          selector.select(TICK_MILLIS);
        } else {
          // Under load there is always something ready: this costs no extra system call.
          selector.selectNow();
        }
      } catch (IOException e) {
        log.warn("local load balancer event loop: select failed: {}", e.toString());
      }
      if (!toClose.isEmpty()) {
        closePending();
      }
      for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
        SelectionKey key = it.next();
        it.remove();
        Handler handler = (Handler) key.attachment();
        try {
          if (key.isValid()) {
            handler.ready(key);
          }
        } catch (IOException e) {
          handler.failed(e);
        } catch (RuntimeException e) {
          log.warn("local load balancer event loop: handler failed", e);
          handler.failed(new IOException(e));
        }
      }
      Runnable task;
      while ((task = tasks.poll()) != null) {
        runSafely(task);
      }
    }
    Runnable task;
    while ((task = tasks.poll()) != null) {
      runSafely(task);
    }
    closePending();
    try {
      selector.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  private static void runSafely(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.warn("local load balancer event loop: task failed", e);
    }
  }

  /** Stops the loop and waits for its thread. */
  @Override
  public void close() {
    running = false;
    selector.wakeup();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
