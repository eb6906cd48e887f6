package io.ccm4j.provider.local;

/** A TCP connection or UDP session through a load balancer, bound to one backend. */
interface ProxiedFlow {

  Backend backend();

  /** The listener it came through. */
  Listener listener();

  /** Ends it at once; idempotent. */
  void close();
}
