package io.ccm4j.simulator.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/** Answers every datagram with a fixed text followed by the datagram itself. */
final class UdpEchoServer implements PortServer {

  private final DatagramChannel channel;
  private final byte[] prefix;
  private final AtomicBoolean closed = new AtomicBoolean();
  final LongAdder datagrams = new LongAdder();

  UdpEchoServer(InetAddress address, int port, String answer, ProxyThreads threads)
      throws IOException {
    this.prefix = (answer + " echo=").getBytes(StandardCharsets.UTF_8);
    this.channel =
        DatagramChannel.open(
            address.getAddress().length == 4
                ? StandardProtocolFamily.INET
                : StandardProtocolFamily.INET6);
    try {
      channel.bind(new InetSocketAddress(address, port));
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    threads.start("kube-proxy-udp-" + address.getHostAddress() + ":" + port, this::loop);
  }

  private void loop() {
    ByteBuffer in = ByteBuffer.allocate(65_535);
    ByteBuffer out = ByteBuffer.allocate(65_535 + prefix.length);
    while (!closed.get()) {
      try {
        in.clear();
        SocketAddress from = channel.receive(in);
        in.flip();
        datagrams.increment();
        out.clear();
        out.put(prefix);
        out.put(in.limit(Math.min(in.limit(), out.remaining())));
        out.flip();
        channel.send(out, from);
      } catch (IOException e) {
        if (closed.get()) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closed
      }
    }
  }
}
