package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RunCommandTest {

  static Stream<Arguments> invalidFlags() {
    return Stream.of(
        Arguments.of(
            "unknown controller",
            List.of("--cloud-provider=fake", "--controllers=*,-route,bogus"),
            "--controllers: \"bogus\" is not in the list of known controllers"),
        Arguments.of("missing provider", List.of(), "--cloud-provider cannot be empty"),
        Arguments.of(
            "empty provider", List.of("--cloud-provider="), "--cloud-provider cannot be empty"),
        Arguments.of(
            "unknown provider name",
            List.of("--cloud-provider=nimbus"),
            "--cloud-provider: unknown cloud provider \"nimbus\"; known providers: fake"),
        Arguments.of(
            "node concurrency 0",
            List.of("--cloud-provider=fake", "--concurrent-node-syncs=0"),
            "--concurrent-node-syncs must be greater than 0, got 0"),
        Arguments.of(
            "service concurrency 0",
            List.of("--cloud-provider=fake", "--concurrent-service-syncs=0"),
            "--concurrent-service-syncs must be greater than 0, got 0"),
        Arguments.of(
            "lock other than leases",
            List.of("--cloud-provider=fake", "--leader-elect-resource-lock=configmaps"),
            "--leader-elect-resource-lock: resourceLock value must be \"leases\""),
        Arguments.of(
            "renew deadline not below lease duration",
            List.of("--cloud-provider=fake", "--leader-elect-renew-deadline=20s"),
            "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline"),
        Arguments.of(
            "unparsable duration",
            List.of("--cloud-provider=fake", "--leader-elect-retry-period=soon"),
            "'soon' is not a duration"),
        Arguments.of(
            "non-numeric concurrency",
            List.of("--cloud-provider=fake", "--concurrent-node-syncs=many"),
            "--concurrent-node-syncs"),
        Arguments.of(
            "port out of range",
            List.of("--cloud-provider=fake", "--secure-port=70000"),
            "--secure-port must be between 0 and 65535"),
        Arguments.of(
            "unknown flag",
            List.of("--cloud-provider=fake", "--colud-config=x"),
            "--colud-config"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidFlags")
  void invalidFlagsExit2WithOneLineNamingTheProblemAndStartNothing(
      String description, List<String> flags, String expectedMessage) throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    List<String> args = new ArrayList<>(List.of("run"));
    if (flags.stream().noneMatch(flag -> flag.startsWith("--secure-port"))) {
      args.addAll(List.of("--bind-address=127.0.0.1", "--secure-port=" + port));
    }
    args.addAll(flags);
    StringWriter err = new StringWriter();

    int exitCode = Ccm4j.execute(new PrintWriter(err, true), args.toArray(String[]::new));

    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString()).contains(expectedMessage).doesNotContain("\tat ");
    assertThat(err.toString().lines()).hasSize(1);
    assertThat(isListening(port)).as("nothing serves after a flag error").isFalse();
  }

  private static boolean isListening(int port) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
