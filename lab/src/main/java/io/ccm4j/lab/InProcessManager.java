package io.ccm4j.lab;

import io.ccm4j.app.RunCommand;
import io.ccm4j.app.manager.CloudControllerManager;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code ccm4j run <flags> --leader-elect=false}, parsed by the real command line and started in
 * this process against {@code client}'s cluster, without a serving port: how the KubeVirt lab runs
 * the infrastructure cluster's own CCM, and how the KubeVirt tests run both clusters' managers.
 */
public final class InProcessManager {

  private InProcessManager() {}

  /** Starts the manager; the caller closes it. */
  public static CloudControllerManager start(KubernetesClient client, String... flags) {
    List<String> args = new ArrayList<>(List.of(flags));
    args.add("--leader-elect=false");
    RunCommand run = RunCommand.parse(args);
    CloudControllerManager manager =
        CloudControllerManager.builder(client)
            .settings(run.settings())
            .leaderElection(Optional.empty())
            .noServing()
            .exit(code -> {})
            .build();
    manager.start();
    return manager;
  }
}
