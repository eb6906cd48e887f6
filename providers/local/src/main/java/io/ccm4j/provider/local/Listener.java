package io.ccm4j.provider.local;

/** One port of a load balancer, forwarding to the backends' node port. */
interface Listener extends AutoCloseable {

  ServiceLoadBalancerSpec.Protocol protocol();

  int port();

  /** The port the backends serve this listener on; may change on a live listener. */
  void setNodePort(int nodePort);

  /** Closes its idle UDP sessions; nothing for TCP. */
  default void expireIdle(long nowNanos) {}

  /** Stops listening and ends its connections or sessions. */
  @Override
  void close();
}
