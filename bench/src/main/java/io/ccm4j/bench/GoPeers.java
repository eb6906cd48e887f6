package io.ccm4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The node-init benchmark's Go peers, built from the repository's {@code bench/peers} Go module by
 * its {@code build-peers.sh} at the control plane's Kubernetes release and cached in {@code
 * ~/.cache/ccm4j/peers-k8s-<version>-<hash>/}: {@code node-init-floor} (client-go, protobuf) and
 * {@code sim-cloud-controller-manager} (the upstream cloud-controller-manager with the sim cloud).
 */
record GoPeers(Path floor, Path upstreamCcm) {

  static final String MODULE = "bench/peers";

  /** Builds (or finds in the cache) the peers for a release such as {@code v1.37.2}. */
  static GoPeers build(String kubernetesVersion, PrintStream out)
      throws IOException, InterruptedException {
    Path module =
        moduleDirectory()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the Go peers are built from the ccm4j source tree's %s: run ./ccm4j from a checkout"
                            .formatted(MODULE)));
    Process build =
        new ProcessBuilder("bash", module.resolve("build-peers.sh").toString(), kubernetesVersion)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (build.waitFor() != 0) {
      throw new IllegalStateException(
          "building the Go peers failed (exit %d; its output is above)"
              .formatted(build.exitValue()));
    }
    String[] lines = output.strip().split("\n");
    Path bin = Path.of(lines[lines.length - 1].strip());
    GoPeers peers =
        new GoPeers(bin.resolve("node-init-floor"), bin.resolve("sim-cloud-controller-manager"));
    if (!Files.isExecutable(peers.floor()) || !Files.isExecutable(peers.upstreamCcm())) {
      throw new IllegalStateException("build-peers.sh named " + bin + ", which holds no peers");
    }
    out.printf("peers: %s%n", bin);
    return peers;
  }

  /** {@code bench/peers} of the checkout this code runs from, or of the working directory. */
  private static Optional<Path> moduleDirectory() {
    return checkout().map(root -> root.resolve(MODULE));
  }

  /** The ccm4j checkout this code runs from (or the working directory, if it is one). */
  static Optional<Path> checkout() {
    List<Path> roots = new ArrayList<>();
    try {
      // bench/target/classes, or launcher/target/lib/ccm4j-bench-*.jar (./ccm4j): the checkout is
      // one of the directories above.
      Path code =
          Path.of(GoPeers.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      for (Path dir = code.getParent(); dir != null; dir = dir.getParent()) {
        roots.add(dir);
      }
    } catch (URISyntaxException | RuntimeException e) {
      // no code source: try the working directory
    }
    roots.add(Path.of("").toAbsolutePath());
    return roots.stream()
        .filter(java.util.Objects::nonNull)
        .filter(root -> Files.isRegularFile(root.resolve(MODULE).resolve("build-peers.sh")))
        .findFirst();
  }
}
