package io.ccm4j.bench;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** The Services the benchmarks create. */
public final class BenchServices {

  private BenchServices() {}

  /** {@code type: LoadBalancer}, TCP port 80 to 8080 of the pods labelled {@code app=<name>}. */
  public static Service loadBalancer(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addToSelector("app", name)
        .addNewPort()
        .withProtocol("TCP")
        .withPort(80)
        .withTargetPort(new IntOrString(8080))
        .endPort()
        .endSpec()
        .build();
  }
}
