package io.ccm4j.controlplane.junit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the test class a running {@link io.ccm4j.controlplane.LocalControlPlane}: declare a
 * parameter of that type, or of {@link io.fabric8.kubernetes.client.KubernetesClient} for an admin
 * client. One control plane (per scheduler setting) serves every class in the test run, so tests
 * keep to their own names and namespaces; a class that is not {@link #shared()} has one of its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ControlPlaneExtension.class)
public @interface WithControlPlane {

  /** Whether kube-scheduler runs too. */
  boolean scheduler() default false;

  /**
   * Whether the class shares the run's control plane. {@code false} starts one for the class alone
   * (a few seconds), stopped after its last test: for a class that runs beside the others (JUnit's
   * parallel execution) and either changes what is cluster-wide (deletes every Node, revokes a
   * ClusterRoleBinding) or must not see the others' objects.
   */
  boolean shared() default true;
}
