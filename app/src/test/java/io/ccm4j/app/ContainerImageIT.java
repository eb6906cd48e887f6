package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image Jib built ({@code target/ccm4j-image.tar}) runs ccm4j: its layers are
 * unpacked into a root file system and its entrypoint runs there (chroot, with its own PID and
 * mount namespaces and its user 65532), against the real API server, and initialises a node.
 * Nothing of the build machine's Java or libraries is reachable from inside.
 */
@WithControlPlane
class ContainerImageIT {

  private static final Path IMAGE = Path.of("target", "ccm4j-image.tar");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;

  @Test
  void theImageRunsTheManagerAndInitialisesANode(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "unpacking an image and running it with chroot needs root");
    assertThat(IMAGE).as("built by the package phase (jib:buildTar)").exists();
    Path root = temp.resolve("rootfs");
    JsonNode config = unpack(IMAGE, root);
    try (Stream<Path> libraries = Files.list(root.resolve("app/libs"))) {
      assertThat(libraries.map(library -> library.getFileName().toString()))
          .as("the product alone: no tools (lab, bench), no local control plane, no simulator")
          .isNotEmpty()
          .noneMatch(name -> name.matches("ccm4j-(lab|bench|controlplane|simulator)-.*"));
    }
    assertThat(config.at("/config/User").asText()).isEqualTo("65532:65532");
    assertThat(signedJars(root.resolve("app")))
        .as("no signed jar: the JVM would digest it at every start and archive none of its classes")
        .isEmpty();
    try (Stream<Path> unsigned = Files.list(root.resolve("app/libs-unsigned"))) {
      assertThat(unsigned.map(library -> library.getFileName().toString()))
          .as(
              "Bouncy Castle's jars (the serving certificate), unsigned in the image's place of them")
          .anyMatch(name -> name.startsWith("bcprov-"))
          .anyMatch(name -> name.startsWith("bcpkix-"));
    }
    Path picocli;
    try (Stream<Path> changed = Files.list(root.resolve("app/libs-unsigned"))) {
      picocli =
          changed
              .filter(library -> library.getFileName().toString().startsWith("picocli-"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("picocli in the image's place of it"));
    }
    try (Stream<Path> libraries = Files.list(root.resolve("app/libs"))) {
      assertThat(libraries.map(library -> library.getFileName().toString()))
          .as("picocli once on the class path")
          .noneMatch(name -> name.startsWith("picocli-"));
    }
    if (Runtime.version().feature() >= 24) {
      try (JarFile jar = new JarFile(picocli.toFile());
          InputStream commandLine = jar.getInputStream(jar.getEntry("picocli/CommandLine.class"))) {
        byte[] header = commandLine.readNBytes(8);
        assertThat(((header[6] & 0xff) << 8) | (header[7] & 0xff))
            .as("picocli's class files in a format the AOT cache takes (Java 6 or later)")
            .isGreaterThanOrEqualTo(50);
      }
    }

    addContainerDevices(root);

    String node = "img-" + UUID.randomUUID().toString().substring(0, 6);
    Files.writeString(
        root.resolve("tmp/sim.yaml"),
        "instances:\n- {name: %s, region: r1, zone: r1-a, instanceType: sim.small, addresses: [10.9.0.1]}\n"
            .formatted(node));
    Files.writeString(
        root.resolve("tmp/kubeconfig"), Files.readString(controlPlane.kubeconfigPath()));

    // Absolute paths: the process gets the image's environment, whose PATH is the image's.
    List<String> command =
        new ArrayList<>(
            List.of(
                hostProgram("unshare"),
                "--fork",
                "--pid",
                "--kill-child",
                "--mount",
                "--mount-proc=" + root.resolve("proc"),
                hostProgram("chroot"),
                "--userspec=65532:65532",
                root.toString()));
    config.at("/config/Entrypoint").forEach(part -> command.add(part.asText()));
    assertThat(command)
        .as("out of memory, the process ends and a standby leads")
        .contains("-XX:+ExitOnOutOfMemoryError");
    assertThat(command)
        .as("the argument file that names the image's AOT cache, where its runtime makes one")
        .contains("@/app/ccm4j-aot.jvmoptions");
    boolean aotRuntime = aotRuntime(root);
    if (aotRuntime) {
      assertThat(Files.readString(root.resolve("app/ccm4j-aot.jvmoptions")))
          .as("the AOT cache built into the image at build time, with the image's own runtime")
          .contains("-XX:AOTCache=/app/ccm4j.aot");
      assertThat(root.resolve("app/ccm4j.aot")).isNotEmptyFile();
    } else {
      assertThat(Files.readString(root.resolve("app/ccm4j-aot.jvmoptions")))
          .as("a runtime before JDK 24 knows no AOT cache, nor its option")
          .doesNotContain("-XX:AOTCache");
    }
    assertThat(config.at("/config/Env"))
        .extracting(JsonNode::asText)
        .as("the manager's JVM options, the file ./ccm4j run reads too, replaceable by a pod's env")
        .contains("JDK_JAVA_OPTIONS=@/app/resources/ccm4j-run.jvmoptions");
    command.addAll(
        List.of(
            "run",
            "--cloud-provider=sim",
            "--cloud-config=/tmp/sim.yaml",
            "--kubeconfig=/tmp/kubeconfig",
            "--controllers=cloud-node",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            "--secure-port=0"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(temp.resolve("ccm4j.log").toFile());
    Map<String, String> environment = builder.environment();
    environment.clear();
    config
        .at("/config/Env")
        .forEach(
            entry -> {
              String[] pair = entry.asText().split("=", 2);
              environment.put(pair[0], pair[1]);
            });
    // As the image runs, but refusing to start without its AOT cache: a cache the image's JVM
    // cannot map (another runtime, another class path) fails the test instead of a slow start.
    if (aotRuntime) {
      environment.merge(
          "JDK_JAVA_OPTIONS",
          " -XX:AOTMode=on -Xlog:class+load=info:file=/tmp/class-load.log",
          String::concat);
    }

    Process manager = builder.start();
    try (KubeletFleet kubelets = new KubeletFleet(client, KubeletFleet.Options.kubeletDefaults())) {
      kubelets.register(NodeSpec.named(node));
      await()
          .atMost(90, TimeUnit.SECONDS)
          .failFast("the image's process ended: " + log(), () -> !manager.isAlive())
          .until(
              () -> {
                Node current = client.nodes().withName(node).get();
                return current != null
                    && !Taints.has(
                        current, WellKnownTaints.UNINITIALIZED, WellKnownTaints.EFFECT_NO_SCHEDULE);
              });
      assertThat(log())
          .as("java read the options file (it fails to start without it)")
          .contains("Picked up JDK_JAVA_OPTIONS: @/app/resources/ccm4j-run.jvmoptions");
      assertThat(log())
          .as(
              "no JDK warning (protobuf-java's sun.misc.Unsafe, the crypto provider's native access)")
          .doesNotContain("WARNING: ");
      if ("amd64".equals(System.getProperty("os.arch"))) {
        assertThat(log())
            .as("the native TLS crypto loads inside the image, as its user, from its /tmp")
            .contains("TLS crypto AmazonCorrettoCryptoProvider");
      }
      if (aotRuntime) {
        String classLoad = Files.readString(root.resolve("tmp/class-load.log"));
        assertThat(classLoad)
            .as("the serving certificate's classes come from the AOT cache (no signed jar)")
            .containsPattern("org\\.bouncycastle\\.cert\\.X509v3CertificateBuilder source: shared");
        if ("amd64".equals(System.getProperty("os.arch"))) {
          assertThat(classLoad)
              .as("and so do the native crypto provider's")
              .containsPattern(
                  "com\\.amazon\\.corretto\\.crypto\\.provider\\.AmazonCorrettoCryptoProvider"
                      + " source: shared");
        }
      }
      Node initialised = client.nodes().withName(node).get();
      assertThat(initialised.getSpec().getProviderID()).isEqualTo("sim://" + node);
      assertThat(initialised.getMetadata().getLabels())
          .containsEntry("topology.kubernetes.io/zone", "r1-a")
          .containsEntry("node.kubernetes.io/instance-type", "sim.small");
    } finally {
      stop(manager);
      client.nodes().withName(node).delete();
    }
  }

  /** The jars under {@code directory} that a jar signer signed (a {@code META-INF/*.SF}). */
  static List<Path> signedJars(Path directory) throws IOException {
    List<Path> signed = new ArrayList<>();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path jar : files.filter(file -> file.toString().endsWith(".jar")).toList()) {
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
          if (zip.stream().anyMatch(entry -> entry.getName().matches("(?i)META-INF/[^/]+\\.SF"))) {
            signed.add(jar);
          }
        }
      }
    }
    return signed;
  }

  /** Whether the image's Java runtime (its {@code release} file) is JDK 24 or newer. */
  private static boolean aotRuntime(Path root) throws IOException {
    String release = Files.readString(root.resolve("opt/java/release"));
    java.util.regex.Matcher version =
        java.util.regex.Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(release);
    assertThat(version.find()).as("the runtime's release file names its version").isTrue();
    return Integer.parseInt(version.group(1)) >= 24;
  }

  /**
   * Stops the image's process and everything under unshare: chroot --userspec changes the user,
   * which clears the parent-death signal --kill-child relies on, so a SIGTERM to unshare alone
   * would leave the manager running.
   */
  private static void stop(Process manager) throws InterruptedException {
    List<ProcessHandle> tree = manager.descendants().toList();
    tree.forEach(ProcessHandle::destroy); // SIGTERM: the manager stops cleanly
    manager.destroy();
    if (!manager.waitFor(30, TimeUnit.SECONDS)) {
      manager.destroyForcibly();
    }
    for (ProcessHandle process : tree) {
      process.onExit().completeOnTimeout(process, 30, TimeUnit.SECONDS).join();
      process.destroyForcibly();
    }
    assertThat(tree).as("nothing of the image left running").noneMatch(ProcessHandle::isAlive);
  }

  /** The device nodes every container runtime gives a container (the OCI runtime spec's). */
  private static void addContainerDevices(Path root) throws Exception {
    Files.createDirectories(root.resolve("dev"));
    for (String[] device :
        new String[][] {{"null", "3"}, {"zero", "5"}, {"random", "8"}, {"urandom", "9"}}) {
      Process mknod =
          new ProcessBuilder(
                  hostProgram("mknod"),
                  "-m",
                  "666",
                  root.resolve("dev").resolve(device[0]).toString(),
                  "c",
                  "1",
                  device[1])
              .inheritIO()
              .start();
      assertThat(mknod.waitFor()).as("mknod /dev/" + device[0]).isZero();
    }
  }

  private static String hostProgram(String name) {
    return Stream.of("/usr/bin", "/usr/sbin", "/bin", "/sbin")
        .map(directory -> Path.of(directory, name))
        .filter(Files::isExecutable)
        .findFirst()
        .map(Path::toString)
        .orElseThrow(() -> new IllegalStateException(name + " (util-linux, coreutils) is missing"));
  }

  private String log() {
    try {
      return Files.readString(temp.resolve("ccm4j.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Unpacks a Docker-format image tarball's layers in order; returns its configuration. */
  private JsonNode unpack(Path image, Path root) throws Exception {
    Path extracted = temp.resolve("image");
    Files.createDirectories(extracted);
    Files.createDirectories(root);
    run("tar", "-xf", image.toAbsolutePath().toString(), "-C", extracted.toString());
    JsonNode manifest = JSON.readTree(extracted.resolve("manifest.json").toFile()).get(0);
    for (JsonNode layer : manifest.get("Layers")) {
      run(
          "tar",
          "--warning=no-unknown-keyword",
          "-xzf",
          extracted.resolve(layer.asText()).toString(),
          "-C",
          root.toString());
    }
    Files.createDirectories(root.resolve("proc"));
    return JSON.readTree(extracted.resolve(manifest.get("Config").asText()).toFile());
  }

  private static void run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).inheritIO().start();
    assertThat(process.waitFor()).as(String.join(" ", command)).isZero();
  }
}
