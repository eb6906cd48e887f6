package io.ccm4j.archetype;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code mvn archetype:generate} from the local repository, offline, then {@code mvn verify} of the
 * generated project: it compiles, and its kit run fails exactly on the stubbed facets, each as "not
 * implemented". This build's SPI, kit and archetype are put in a repository of the test's own, in
 * front of the build's local repository (read-only, for everything else), so no other build's
 * snapshots are used.
 */
class ProviderArchetypeIT {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String VERSION = System.getProperty("ccm4j.version");
  private static final Path CCM4J_IMAGE = ROOT.resolve("app/target/ccm4j-image.tar");

  /** The checks that call a stub; every other check passes or is skipped. */
  private static final List<String> STUBBED =
      List.of(
          "l5_l7_aRunningInstanceExistsAndIsNotShutDown",
          "n6_aRegisteredNodeGetsItsProviderIdFromTheMetadata",
          "f2_theProviderIdOfAnInitialisedNodeIsKept",
          "n6_aRegisteredNodeIsNeverGoneWhileItsInstanceRuns",
          "n7_theProvidedNodeIpIsAmongTheAddresses",
          "n8_theZoneAndRegionAreLabelValues",
          "s11_aServiceNeverEnsuredHasNoLoadBalancer",
          "s14_ensuringAgainGivesTheSameLoadBalancer",
          "s12_s13_theStatusHasAnIngressOfTheRightShape",
          "s15_updateFollowsTheNodes",
          "s11_deletingAMissingLoadBalancerSucceeds",
          "r5_aCreatedRouteIsListedBack",
          "r6_aDeletedRouteIsNoLongerListed",
          "r6_anotherClustersRouteIsNotListed",
          "l5_l6_bulkExistsAnswersAsPerNode",
          "l7_bulkShutdownAnswersAsPerNode",
          "n6_bulkMetadataAnswersAsPerNode",
          "aFullBulkCallIsAnswered",
          "s15_aBulkUpdateEqualsUpdatesOneByOne");

  @TempDir Path work;

  @Test
  void aGeneratedProviderBuildsAndItsKitRunFailsExactlyOnTheStubs() throws Exception {
    Path repository = work.resolve("repository");
    Path project = generate(repository);

    int verified = mvn(repository, project, "../verify.log", "verify");
    assertThat(verified).as(log("verify.log")).isNotZero();
    assertThat(log("verify.log")).contains("BUILD FAILURE").contains("There are test failures");

    Map<String, String> failures =
        failures(
            project.resolve(
                "target/surefire-reports/TEST-com.example.acme.AcmeProviderContractTest.xml"));
    assertThat(failures.keySet()).containsExactlyInAnyOrderElementsOf(STUBBED);
    assertThat(failures.values())
        .allSatisfy(
            message -> assertThat(message).contains(" not checked: ", " is not implemented: "));
    assertThat(failures.get("r5_aCreatedRouteIsListedBack"))
        .startsWith(
            "contract ROUTE_LISTED_BACK (R5, Routes) not checked: Routes is not implemented:")
        .endsWith("(at AcmeRoutes.createRoute)");
    // A check that ensures first names the ensure stub, though its clean-up calls another stub.
    assertThat(failures.get("s14_ensuringAgainGivesTheSameLoadBalancer"))
        .contains("is not implemented: LoadBalancer.ensureLoadBalancer:")
        .endsWith("(at AcmeLoadBalancers.ensureLoadBalancer)");
  }

  /**
   * {@code mvn -Pimage package} of the generated project builds on ccm4j's image tarball, offline:
   * ccm4j's layers, entrypoint and user as they are, and above them only the provider's files,
   * under {@code /app/provider}, which ccm4j's class path starts with.
   */
  @Test
  void aGeneratedProvidersImageIsCcm4jsImagePlusTheProvider() throws Exception {
    assumeTrue(
        Files.exists(CCM4J_IMAGE),
        "app's package phase built no image (-Djib.skip?): " + CCM4J_IMAGE);
    Path repository = work.resolve("repository");
    Path project = generate(repository);

    int built =
        mvn(
            repository,
            project,
            "../image.log",
            "-Pimage",
            "package",
            "-DskipTests",
            "-Dccm4j.image=" + CCM4J_IMAGE);
    assertThat(built).as(log("image.log")).isZero();

    ImageTarball base = ImageTarball.read(CCM4J_IMAGE, work.resolve("base"));
    ImageTarball image =
        ImageTarball.read(project.resolve("target/image.tar"), work.resolve("image"));
    assertThat(image.layers()).startsWith(base.layers().toArray(String[]::new));
    assertThat(image.config().at("/config/Entrypoint"))
        .isEqualTo(base.config().at("/config/Entrypoint"));
    assertThat(image.config().at("/config/User").asText()).isEqualTo("65532:65532");
    List<String> added = new ArrayList<>();
    for (String layer : image.layers().subList(base.layers().size(), image.layers().size())) {
      added.addAll(image.files(layer));
    }
    assertThat(added)
        .contains(
            "app/provider/classes/com/example/acme/AcmeCloudProviderFactory.class",
            "app/provider/resources/META-INF/services/io.ccm4j.cloudprovider.CloudProviderFactory")
        .allSatisfy(file -> assertThat(file).startsWith("app/"))
        .noneMatch(file -> file.startsWith("app/libs/") || file.equals("app/jib-classpath-file"))
        .as("the SPI comes with ccm4j's manager")
        .noneMatch(file -> file.contains("ccm4j-spi"));
    assertThat(base.file("app/jib-classpath-file"))
        .startsWith("/app/provider/resources:/app/provider/classes:/app/provider/libs/*:");
  }

  /** This build's artifacts in a repository of the test's own; the generated project. */
  private Path generate(Path repository) throws Exception {
    install(repository, "ccm4j-parent", ROOT.resolve("pom.xml"), null);
    install(repository, "ccm4j-spi", ROOT.resolve("spi/pom.xml"), jar("spi", "ccm4j-spi"));
    install(
        repository,
        "ccm4j-provider-tck",
        ROOT.resolve("provider-tck/pom.xml"),
        jar("provider-tck", "ccm4j-provider-tck"));
    install(
        repository,
        "ccm4j-provider-archetype",
        ROOT.resolve("provider-archetype/pom.xml"),
        jar("provider-archetype", "ccm4j-provider-archetype"));

    int generated =
        mvn(
            repository,
            work,
            "generate.log",
            "org.apache.maven.plugins:maven-archetype-plugin:3.3.1:generate",
            "-DinteractiveMode=false",
            "-DarchetypeGroupId=io.ccm4j",
            "-DarchetypeArtifactId=ccm4j-provider-archetype",
            "-DarchetypeVersion=" + VERSION,
            "-DgroupId=com.example",
            "-DartifactId=acme-ccm",
            "-Dversion=1.0.0-SNAPSHOT",
            "-Dpackage=com.example.acme",
            "-DproviderName=acme",
            "-DclassPrefix=Acme");
    assertThat(generated).as(log("generate.log")).isZero();
    Path project = work.resolve("acme-ccm");
    assertThat(
            project.resolve(
                "src/main/resources/META-INF/services/io.ccm4j.cloudprovider.CloudProviderFactory"))
        .hasContent("com.example.acme.AcmeCloudProviderFactory");
    assertThat(project.resolve("chart/values.yaml")).content().contains("cloudProvider: acme");
    return project;
  }

  /** A Docker-format image tarball (Jib's buildTar), unpacked into a directory. */
  private record ImageTarball(Path directory, List<String> layers, JsonNode config) {

    static ImageTarball read(Path tarball, Path directory) throws Exception {
      Files.createDirectories(directory);
      run("tar", "-xf", tarball.toString(), "-C", directory.toString());
      ObjectMapper json = new ObjectMapper();
      JsonNode manifest = json.readTree(directory.resolve("manifest.json").toFile()).get(0);
      List<String> layers = new ArrayList<>();
      manifest.get("Layers").forEach(layer -> layers.add(layer.asText()));
      return new ImageTarball(
          directory,
          layers,
          json.readTree(directory.resolve(manifest.get("Config").asText()).toFile()));
    }

    /** The regular files of a layer. */
    List<String> files(String layer) throws Exception {
      return run(
              "tar", "--warning=no-unknown-keyword", "-tzvf", directory.resolve(layer).toString())
          .lines()
          .filter(line -> line.startsWith("-"))
          .map(line -> line.substring(line.lastIndexOf(' ') + 1))
          .toList();
    }

    /** A file's content, from the last layer that has it. */
    String file(String path) throws Exception {
      for (String layer : layers.reversed()) {
        if (files(layer).contains(path)) {
          return run(
              "tar",
              "--warning=no-unknown-keyword",
              "-xzOf",
              directory.resolve(layer).toString(),
              path);
        }
      }
      throw new AssertionError(path + " is in no layer");
    }

    private static String run(String... command) throws Exception {
      Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
      String out = new String(process.getInputStream().readAllBytes());
      assertThat(process.waitFor()).as(String.join(" ", command)).isZero();
      return out;
    }
  }

  private static Path jar(String module, String artifactId) {
    return ROOT.resolve(module).resolve("target").resolve(artifactId + "-" + VERSION + ".jar");
  }

  /** Into the repository's layout, as {@code mvn install} would put it. */
  private static void install(Path repository, String artifactId, Path pom, Path jar)
      throws IOException {
    Path directory = repository.resolve("io/ccm4j").resolve(artifactId).resolve(VERSION);
    Files.createDirectories(directory);
    String base = artifactId + "-" + VERSION;
    Files.copy(pom, directory.resolve(base + ".pom"), StandardCopyOption.REPLACE_EXISTING);
    if (jar != null) {
      assertThat(jar).as("built by this build").exists();
      Files.copy(jar, directory.resolve(base + ".jar"), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Maven (the wrapper), offline, with this repository in front of the build's local one. */
  private int mvn(Path repository, Path directory, String logName, String... args)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("mvnw").toString());
    command.addAll(
        List.of(
            "-B",
            "-o",
            "-ntp",
            "-Dmaven.repo.local=" + repository,
            "-Dmaven.repo.local.tail=" + System.getProperty("ccm4j.localRepository")));
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(directory.resolve(logName).toFile())
            .start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("mvn " + String.join(" ", args) + " did not end within 5 minutes");
    }
    return process.exitValue();
  }

  private String log(String name) throws IOException {
    return Files.readString(work.resolve(name));
  }

  /** Failed test cases by name, with their messages (errors count as failures here). */
  private static Map<String, String> failures(Path report) throws Exception {
    Element suite =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(report.toFile())
            .getDocumentElement();
    Map<String, String> failed = new TreeMap<>();
    NodeList cases = suite.getElementsByTagName("testcase");
    for (int i = 0; i < cases.getLength(); i++) {
      Element testCase = (Element) cases.item(i);
      for (String kind : List.of("failure", "error")) {
        NodeList found = testCase.getElementsByTagName(kind);
        if (found.getLength() > 0) {
          failed.put(
              testCase.getAttribute("name"), ((Element) found.item(0)).getAttribute("message"));
        }
      }
    }
    return failed;
  }
}
