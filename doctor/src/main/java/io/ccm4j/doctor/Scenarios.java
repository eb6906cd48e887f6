package io.ccm4j.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The bootstrap scenarios the lab runs: the recommended manifests of {@code deploy/}, one manifest
 * per deadlock of the chicken-and-egg post, and the recommended Deployment for a KubeVirt tenant
 * cluster, all in the jar.
 */
public final class Scenarios {

  public static final String RECOMMENDED = "recommended";

  /**
   * The recommended Deployment with {@code --cloud-provider=kubevirt}: the lab bootstraps a tenant
   * cluster whose nodes are VMs of an infrastructure cluster.
   */
  public static final String KUBEVIRT = "kubevirt";

  /** Every scenario name, the recommended one first. */
  public static final List<String> NAMES =
      List.of(
          RECOMMENDED,
          "missing-uninitialized-toleration",
          "not-ready-noexecute",
          "replicas-without-leader-election",
          "pod-network",
          "control-plane-only-taint",
          "master-only-toleration",
          "network-unavailable-with-routes",
          KUBEVIRT);

  private Scenarios() {}

  /** The scenario's CCM manifest (the Deployment) as YAML text. */
  public static String manifest(String name) {
    String resource =
        RECOMMENDED.equals(name)
            ? "/io/ccm4j/deploy/deployment.yaml"
            : "/io/ccm4j/doctor/scenarios/" + name + ".yaml";
    return read(resource, name);
  }

  /** The RBAC every scenario applies: {@code deploy/rbac.yaml}. */
  public static String rbac() {
    return read("/io/ccm4j/deploy/rbac.yaml", "rbac");
  }

  private static String read(String resource, String name) {
    try (InputStream in = Scenarios.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException(
            "unknown scenario \"%s\"; known: %s".formatted(name, String.join(", ", NAMES)));
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
