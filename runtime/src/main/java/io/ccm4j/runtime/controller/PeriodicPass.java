package io.ccm4j.runtime.controller;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller's periodic pass, made safe for {@code scheduleWithFixedDelay}: a pass that fails is
 * logged and the next one runs on time. A scheduled task that throws is never run again, and the
 * failure sits unread in its future, so without this one bad node could silently stop a
 * controller's loop while its health stayed green. Upstream's {@code wait.Until} would crash the
 * process instead; as in {@link QueueWorkers}, bugs hit by one pass (stack overflow, linkage,
 * assertion) are logged and the loop goes on, while errors of the JVM itself (out of memory) still
 * propagate.
 */
public final class PeriodicPass implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(PeriodicPass.class);

  private final String name;
  private final Runnable pass;

  private PeriodicPass(String name, Runnable pass) {
    this.name = name;
    this.pass = pass;
  }

  /**
   * @param name what the pass does, for the log ("node health pass")
   */
  public static Runnable of(String name, Runnable pass) {
    return new PeriodicPass(name, pass);
  }

  @Override
  public void run() {
    try {
      pass.run();
    } catch (RuntimeException e) {
      log.error("{} failed, next pass as scheduled: {}", name, e.toString());
    } catch (StackOverflowError | LinkageError | AssertionError e) {
      log.error("{}: bug, next pass as scheduled", name, e);
    } catch (VirtualMachineError e) {
      log.error("{}: {}; this loop stops", name, e.toString());
      throw e;
    }
  }
}
