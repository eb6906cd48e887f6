package io.ccm4j.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/**
 * A lab's own block of this machine's loopback, {@code 127.<n>.}, held until closed. Its nodes,
 * their kube-proxies and its load balancers listen on addresses in it (on fixed ports: kube-proxy's
 * healthz on every node), so two labs that run at once on one machine, in one process or two, need
 * two blocks. Each lab listens on the block's {@link #MARK} while it holds it: a second lab that
 * drew the same {@code n} cannot listen there and draws again.
 */
public final class LabLoopback implements AutoCloseable {

  /** The address and port a lab listens on to hold its block: no lab address uses them. */
  static final String MARK = "255.254";

  static final int MARK_PORT = 10255;

  /** The second octets a lab draws from. */
  static final int FIRST = 60;

  static final int END = 250;

  private static final int DRAWS = 64;

  private final String prefix;
  private final ServerSocket mark;

  private LabLoopback(String prefix, ServerSocket mark) {
    this.prefix = prefix;
    this.mark = mark;
  }

  /** A block drawn at random that no other lab holds now. */
  public static LabLoopback claim() {
    return claim(() -> ThreadLocalRandom.current().nextInt(FIRST, END));
  }

  /** A block with the first second octet {@code draws} gives that no other lab holds now. */
  static LabLoopback claim(IntSupplier draws) {
    IOException last = null;
    for (int i = 0; i < DRAWS; i++) {
      String prefix = "127." + draws.getAsInt() + ".";
      ServerSocket socket = null;
      try {
        socket = new ServerSocket();
        // Without SO_REUSEADDR: a mark a lab just closed is free at once (nothing connects to it).
        socket.setReuseAddress(false);
        socket.bind(new InetSocketAddress(InetAddress.getByName(prefix + MARK), MARK_PORT), 1);
        return new LabLoopback(prefix, socket);
      } catch (BindException e) {
        last = e;
        closeQuietly(socket);
      } catch (IOException e) {
        closeQuietly(socket);
        throw new UncheckedIOException("cannot listen on " + prefix + MARK, e);
      }
    }
    throw new IllegalStateException(
        "no free block of the loopback for the lab after %d draws: other labs hold them"
            .formatted(DRAWS),
        last);
  }

  /** {@code 127.<n>.}: the lab's addresses are this and two more octets. */
  public String prefix() {
    return prefix;
  }

  @Override
  public void close() {
    closeQuietly(mark);
  }

  private static void closeQuietly(ServerSocket socket) {
    if (socket == null) {
      return;
    }
    try {
      socket.close();
    } catch (IOException e) {
      // nothing holds the block any more either way
    }
  }
}
