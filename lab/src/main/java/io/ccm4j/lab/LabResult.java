package io.ccm4j.lab;

import java.util.List;
import java.util.Optional;

/**
 * How a lab run ended.
 *
 * @param verdict {@code bootstrapped}, {@code deadlocked} or {@code collision}
 * @param seconds when the verdict was reached
 * @param explanation the cycle or collision, in words (empty when bootstrapped)
 * @param traffic after a bootstrap, whether a request through a load balancer the CCM provisioned
 *     was answered by a node (empty when the cluster did not bootstrap, or no CCM runs the service
 *     controller)
 * @param evidence what the run ran on (which kubelets, their versions, the CCM pods' images), taken
 *     before the cluster ended; empty where no lab collected it
 */
public record LabResult(
    String scenario,
    String verdict,
    double seconds,
    List<String> explanation,
    Timeline timeline,
    Optional<Traffic> traffic,
    Optional<LabEvidence> evidence) {

  /** A result without evidence (the lab adds it with {@link #withEvidence}). */
  public LabResult(
      String scenario,
      String verdict,
      double seconds,
      List<String> explanation,
      Timeline timeline,
      Optional<Traffic> traffic) {
    this(scenario, verdict, seconds, explanation, timeline, traffic, Optional.empty());
  }

  public static final String BOOTSTRAPPED = "bootstrapped";
  public static final String DEADLOCKED = "deadlocked";
  public static final String COLLISION = "collision";

  /**
   * A request from outside the cluster to a LoadBalancer Service's ingress address.
   *
   * @param answered whether a node answered it through the load balancer
   * @param summary what happened, in one sentence
   */
  public record Traffic(boolean answered, String summary) {}

  /** This result with what the run ran on. */
  public LabResult withEvidence(LabEvidence collected) {
    return new LabResult(
        scenario, verdict, seconds, explanation, timeline, traffic, Optional.of(collected));
  }

  /** Bootstrapped, and the load balancer answered where one was checked. */
  public boolean succeeded() {
    return BOOTSTRAPPED.equals(verdict) && traffic.map(Traffic::answered).orElse(true);
  }
}
