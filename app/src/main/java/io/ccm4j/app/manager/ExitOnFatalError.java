package io.ccm4j.app.manager;

import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manager process's handler for what no thread caught. An error of the JVM itself (out of
 * memory, an internal error) ends the process with code 1, as a panic ends upstream's manager: a
 * worker or a periodic loop it killed would otherwise leave a leader that holds the Lease while
 * part of it does nothing. Exiting runs the shutdown hook, which releases the Lease, so a standby
 * takes over at once. A stack overflow is not fatal here (it unwinds cleanly; the workers and loops
 * log it and go on); anything else uncaught is logged.
 *
 * <p>An out-of-memory error the JVM raises itself ends the process earlier still: the launcher and
 * the image run with {@code -XX:+ExitOnOutOfMemoryError}, since after one the heap may be too full
 * to run this handler. This one covers the rest, and the errors a provider throws.
 */
public final class ExitOnFatalError implements Thread.UncaughtExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ExitOnFatalError.class);

  private final IntConsumer exit;

  /**
   * @param exit {@code System::exit} in production; called on a thread of its own, since exiting
   *     waits for the shutdown hook, which may wait for the thread that failed
   */
  public ExitOnFatalError(IntConsumer exit) {
    this.exit = exit;
  }

  /** Whether an error ends the process. */
  public static boolean isFatal(Throwable error) {
    return error instanceof VirtualMachineError && !(error instanceof StackOverflowError);
  }

  @Override
  public void uncaughtException(Thread thread, Throwable error) {
    if (!isFatal(error)) {
      log.error("uncaught in thread {}", thread.getName(), error);
      return;
    }
    log.error("fatal error in thread {}, exiting: {}", thread.getName(), error.toString());
    try {
      Thread.ofPlatform().name("ccm4j-fatal-exit").start(() -> exit.accept(1));
    } catch (Throwable cannotStart) {
      Runtime.getRuntime().halt(1); // not even a thread to exit from
    }
  }
}
