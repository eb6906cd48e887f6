package io.ccm4j.cloudprovider.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * This machine's host name as the kernel has it, read as Go's {@code os.Hostname()} reads it
 * (upstream names its leader-election identity so): from {@code /proc/sys/kernel/hostname}, without
 * a DNS lookup. {@code InetAddress.getLocalHost()} resolves the name, which on a node whose DNS
 * does not answer yet (a cluster bootstrapping, before its DNS pods can run) takes the resolver's
 * 10 s, and again after the JVM's 10 s negative cache: it held a manager's start for a minute on
 * the lab's real kubelets.
 */
public final class Hostname {

  private static final Path KERNEL_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

  private Hostname() {}

  /** The host name: the kernel's, else {@code $HOSTNAME}, else the JDK's (which may resolve it). */
  public static String get() {
    return of(KERNEL_HOSTNAME, System::getenv);
  }

  static String of(Path kernelHostname, Function<String, String> environment) {
    try {
      String name = Files.readString(kernelHostname, StandardCharsets.UTF_8).strip();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException | SecurityException e) {
      // not Linux, or no /proc: the environment or the JDK
    }
    String variable = environment.apply("HOSTNAME");
    if (variable != null && !variable.isBlank()) {
      return variable.strip();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
