package io.ccm4j.provider.local;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One backend node of one load balancer: its address, health and connections. A backend gets new
 * connections only while it is a member and healthy ("serving"); when it stops serving, the time is
 * noted and its existing connections may live for the drain timeout.
 */
final class Backend {

  final String nodeName;
  final InetAddress address;
  final AtomicInteger active = new AtomicInteger();
  final LongAdder total = new LongAdder();
  final AtomicBoolean probing = new AtomicBoolean();

  private volatile boolean member = true;
  private volatile boolean healthy;
  private volatile long notServingSince = System.nanoTime();
  // Written by one probe at a time (guarded by probing).
  private int successes;
  private int failures;
  private boolean probed;

  Backend(String nodeName, InetAddress address) {
    this.nodeName = nodeName;
    this.address = address;
  }

  boolean serving() {
    return member && healthy;
  }

  boolean member() {
    return member;
  }

  boolean healthy() {
    return healthy;
  }

  /** {@link System#nanoTime()} since when it has not been serving, or 0 while it serves. */
  long notServingSince() {
    return notServingSince;
  }

  synchronized void setMember(boolean member) {
    this.member = member;
    updateServing();
  }

  /**
   * A former member (still draining) that is a member again: its health was not checked while it
   * was out, so it serves only once a new probe passes, as a new backend does.
   */
  synchronized void rejoin() {
    member = true;
    healthy = false;
    probed = false;
    successes = 0;
    failures = 0;
    updateServing();
  }

  /**
   * Records a probe result; returns whether the healthy state changed. The first result decides at
   * once, so a new load balancer is ready when ensure returns.
   */
  synchronized boolean recordProbe(boolean ok, int healthyThreshold, int unhealthyThreshold) {
    boolean first = !probed;
    probed = true;
    if (ok) {
      successes++;
      failures = 0;
    } else {
      failures++;
      successes = 0;
    }
    boolean next = healthy;
    if (first) {
      next = ok;
    } else if (ok && successes >= healthyThreshold) {
      next = true;
    } else if (!ok && failures >= unhealthyThreshold) {
      next = false;
    }
    if (next == healthy) {
      return false;
    }
    healthy = next;
    updateServing();
    return true;
  }

  private void updateServing() {
    if (serving()) {
      notServingSince = 0;
    } else if (notServingSince == 0) {
      notServingSince = System.nanoTime();
    }
  }

  @Override
  public String toString() {
    return nodeName + "(" + address.getHostAddress() + ")";
  }
}
