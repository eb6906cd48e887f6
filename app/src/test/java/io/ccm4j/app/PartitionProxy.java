package io.ccm4j.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback between a client and a server that a test can cut off, as a network
 * partition does: while cut, bytes in either direction are read and dropped and new connections are
 * accepted but go nowhere, so the client sees silence, not a reset. Healing closes every connection
 * that lived through the cut (its stream is broken, as a real one would be after the partition) and
 * forwards new ones again: nothing sent during the cut arrives late.
 */
final class PartitionProxy implements AutoCloseable {

  private final InetSocketAddress target;
  private final ServerSocket server;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final AtomicInteger acceptedSinceHeal = new AtomicInteger();
  private volatile boolean cut;
  private volatile boolean closed;

  private record Link(Socket client, Socket upstream) {
    void close() {
      closeQuietly(client);
      if (upstream != null) {
        closeQuietly(upstream);
      }
    }
  }

  PartitionProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("partition-proxy-accept").start(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  /** From now on nothing passes. */
  void cut() {
    cut = true;
  }

  /** Connections that lived through the cut are closed; new ones pass again. */
  void heal() {
    acceptedSinceHeal.set(0);
    cut = false;
    for (Link link : links) {
      link.close();
    }
    links.clear();
  }

  /** Connections opened since the last heal. */
  int acceptedSinceHeal() {
    return acceptedSinceHeal.get();
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      acceptedSinceHeal.incrementAndGet();
      if (cut) {
        Link link = new Link(client, null);
        links.add(link);
        Thread.ofVirtual().start(() -> drain(client));
        continue;
      }
      try {
        Socket upstream = new Socket(target.getAddress(), target.getPort());
        Link link = new Link(client, upstream);
        links.add(link);
        Thread.ofVirtual().start(() -> pump(client, upstream, link));
        Thread.ofVirtual().start(() -> pump(upstream, client, link));
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to, Link link) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int read;
      while ((read = in.read(buffer)) >= 0) {
        if (cut) {
          continue; // dropped: the partition
        }
        out.write(buffer, 0, read);
        out.flush();
      }
    } catch (IOException e) {
      // closed by the other pump, by heal() or by close()
    }
    if (!cut) {
      link.close();
      links.remove(link);
    }
  }

  private static void drain(Socket socket) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = socket.getInputStream()) {
      while (in.read(buffer) >= 0) {
        // dropped
      }
    } catch (IOException e) {
      // closed
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Link link : links) {
      link.close();
    }
  }
}
