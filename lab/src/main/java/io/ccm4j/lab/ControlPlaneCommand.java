package io.ccm4j.lab;

import io.ccm4j.controlplane.LocalControlPlane;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ccm4j control-plane}: a local etcd, kube-apiserver and kube-scheduler until interrupted.
 */
@Command(
    name = "control-plane",
    description = {
      "Run a local control plane (etcd, kube-apiserver, kube-scheduler) until Ctrl-C.",
      "",
      "Start a local control plane (etcd, kube-apiserver with TLS, token auth and RBAC, "
          + "kube-scheduler) on free loopback ports, print its kubeconfig, and stop it on Ctrl-C. "
          + "Uses the binaries in KUBEBUILDER_ASSETS if set, else builds the pinned Kubernetes from "
          + "Go modules on first use (cached in ~/.cache/ccm4j); CCM4J_KUBERNETES_VERSION=1.x.y "
          + "selects another release."
    },
    mixinStandardHelpOptions = true)
public final class ControlPlaneCommand implements Callable<Integer> {

  @Option(
      names = "--dir",
      paramLabel = "<dir>",
      description =
          "Keep data, certificates, kubeconfig and logs here (default: a temporary directory, deleted on exit).")
  Path directory;

  @Option(
      names = "--scheduler",
      arity = "0..1",
      defaultValue = "true",
      fallbackValue = "true",
      paramLabel = "<bool>",
      description = "Also run kube-scheduler. Default: ${DEFAULT-VALUE}.")
  boolean scheduler;

  @Option(
      names = "--controller-manager",
      arity = "0..1",
      defaultValue = "false",
      fallbackValue = "true",
      paramLabel = "<bool>",
      description =
          "Also run kube-controller-manager with the workload controllers only (deployment, "
              + "replicaset,"
              + " daemonset, service accounts and the root CA ConfigMap). Default: ${DEFAULT-VALUE}.")
  boolean controllerManager;

  @Override
  public Integer call() throws InterruptedException {
    LocalControlPlane controlPlane =
        LocalControlPlane.builder()
            .directory(directory)
            .withScheduler(scheduler)
            .withControllerManager(controllerManager)
            .start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  controlPlane.close();
                  stopped.countDown();
                },
                "control-plane-stop"));
    System.out.printf(
        "Control plane (Kubernetes %s) ready at %s (started in %.1f s).%n"
            + "  export KUBECONFIG=%s%n"
            + "  kubectl: %s%n"
            + "Logs are in %s. Press Ctrl-C to stop.%n",
        controlPlane.binaries().version(),
        controlPlane.serverUrl(),
        controlPlane.startTime().toMillis() / 1000.0,
        controlPlane.kubeconfigPath(),
        controlPlane.binaries().kubectl(),
        controlPlane.directory());
    System.out.flush();
    stopped.await();
    return 0;
  }
}
