package io.ccm4j.app.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExitOnFatalErrorTest {

  private final List<Integer> exits = new CopyOnWriteArrayList<>();
  private final ExitOnFatalError handler = new ExitOnFatalError(exits::add);

  @Test
  void anErrorOfTheJvmItselfEndsTheProcessWithOne() {
    assertThat(ExitOnFatalError.isFatal(new OutOfMemoryError())).isTrue();
    handler.uncaughtException(Thread.currentThread(), new InternalError("the JVM's own"));

    await().atMost(5, TimeUnit.SECONDS).until(() -> !exits.isEmpty());
    assertThat(exits).containsExactly(1);
  }

  @Test
  void aStackOverflowOrAnExceptionIsOnlyLogged() throws InterruptedException {
    handler.uncaughtException(Thread.currentThread(), new StackOverflowError());
    handler.uncaughtException(Thread.currentThread(), new IllegalStateException("a bug"));
    handler.uncaughtException(Thread.currentThread(), new NoClassDefFoundError("io/ccm4j/X"));

    Thread.sleep(200); // the exit would come from a thread of its own
    assertThat(exits).isEmpty();
  }
}
