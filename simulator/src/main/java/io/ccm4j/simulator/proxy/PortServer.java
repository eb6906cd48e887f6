package io.ccm4j.simulator.proxy;

/** Something serving one port of a simulated node. */
interface PortServer extends AutoCloseable {

  @Override
  void close();
}
