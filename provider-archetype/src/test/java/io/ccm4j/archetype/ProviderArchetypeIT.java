package io.ccm4j.archetype;

import static org.assertj.core.api.Assertions.assertThat;

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

  /** The checks that call a stub; every other check passes or is skipped. */
  private static final List<String> STUBBED =
      List.of(
          "l5_l7_aRunningInstanceExistsAndIsNotShutDown",
          "n6_aRegisteredNodeGetsItsProviderIdFromTheMetadata",
          "f2_theProviderIdOfAnInitialisedNodeIsKept",
          "n6_aRegisteredNodeIsNeverGoneWhileItsInstanceRuns",
          "s11_aServiceNeverEnsuredHasNoLoadBalancer",
          "s14_ensuringAgainGivesTheSameLoadBalancer",
          "s12_s13_theStatusHasAnIngressOfTheRightShape",
          "s15_updateFollowsTheNodes",
          "s11_deletingAMissingLoadBalancerSucceeds",
          "r5_aCreatedRouteIsListedBack",
          "r6_aDeletedRouteIsNoLongerListed",
          "l5_l6_bulkExistsAnswersAsPerNode",
          "l7_bulkShutdownAnswersAsPerNode",
          "n6_bulkMetadataAnswersAsPerNode",
          "aFullBulkCallIsAnswered",
          "s15_aBulkUpdateEqualsUpdatesOneByOne");

  @TempDir Path work;

  @Test
  void aGeneratedProviderBuildsAndItsKitRunFailsExactlyOnTheStubs() throws Exception {
    Path repository = work.resolve("repository");
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
