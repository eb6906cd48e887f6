package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.app.Ccm4j;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Scenarios;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The manifest a user gives {@code ccm4j lab --manifest}: read and checked before anything runs.
 */
class LabManifestTest {

  @TempDir Path dir;

  @Test
  void aDirectoryIsReadAsTheDoctorReadsOne() throws Exception {
    Path manifests = Files.createDirectories(dir.resolve("my-ccm"));
    Files.writeString(manifests.resolve("ccm.yaml"), Scenarios.manifest(Scenarios.RECOMMENDED));
    Files.writeString(
        manifests.resolve("extra.json"),
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"from-json\"}}");
    Files.writeString(manifests.resolve("notes.txt"), "not a manifest");

    LabManifest.Read read = LabManifest.read(manifests);

    assertThat(read.name()).isEqualTo("my-ccm");
    assertThat(read.text())
        .contains("kind: \"Deployment\"")
        .contains("name: \"from-json\"")
        .doesNotContain("not a manifest");
  }

  @Test
  void anchorsAndMergeKeysAreResolvedBeforeTheLabAppliesThem() throws Exception {
    Path file = dir.resolve("ccm.yaml");
    Files.writeString(
        file,
        Scenarios.manifest(Scenarios.RECOMMENDED)
            + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchored\n"
            + "  labels: &labels {app: ccm}\n  annotations:\n    <<: *labels\n    extra: \"1\"\n");

    LabManifest.Read read = LabManifest.read(file);

    assertThat(read.name()).isEqualTo("ccm");
    assertThat(read.text()).doesNotContain("<<").doesNotContain("*labels").contains("extra: \"1\"");
  }

  /** A kustomize overlay: applying its base without its patch would judge another manifest. */
  @Test
  void aKustomizePatchEndsTheCommandNamingIt() throws Exception {
    Path overlay = Files.createDirectories(dir.resolve("overlay"));
    Files.writeString(overlay.resolve("ccm.yaml"), Scenarios.manifest(Scenarios.RECOMMENDED));
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        "resources: [ccm.yaml]\npatches:\n- path: replicas.yaml\n");
    Path patch =
        Files.writeString(
            overlay.resolve("replicas.yaml"),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cloud-controller-manager\n"
                + "  namespace: kube-system\nspec:\n  replicas: 3\n");

    assertThatThrownBy(() -> LabManifest.read(overlay))
        .isInstanceOf(ManifestException.class)
        .hasMessageStartingWith(patch + ": a kustomize patch (")
        .hasMessageEndingWith("the objects as applied are what kubectl kustomize prints");
  }

  @Test
  void anUnrenderedHelmTemplateIsNamedAtItsLine() throws IOException {
    Path file = dir.resolve("template.yaml");
    Files.writeString(
        file, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.name }}\n");

    assertThatThrownBy(() -> LabManifest.read(file))
        .isInstanceOf(ManifestException.class)
        .hasMessage(
            file
                + ":4: an unrendered Helm template ({{ ... }}): render it with helm"
                + " template first");
  }

  @Test
  void anObjectWithoutItsKindOrNameIsNamedAtItsLine() throws IOException {
    Path file = dir.resolve("ccm.yaml");
    String ccm = Scenarios.manifest(Scenarios.RECOMMENDED);
    int lines = ccm.split("\n", -1).length;
    Files.writeString(file, ccm + "\n---\nkind: ConfigMap\nmetadata:\n  name: no-version\n");

    assertThatThrownBy(() -> LabManifest.read(file))
        .isInstanceOf(ManifestException.class)
        .hasMessage(file + ":" + (lines + 2) + ": an object without apiVersion");

    Files.writeString(file, ccm + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n");
    assertThatThrownBy(() -> LabManifest.read(file))
        .hasMessageEndingWith(": an object without metadata.name");
  }

  @Test
  void aManifestWithoutACcmHasNothingToBootstrapWith() throws IOException {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");

    assertThatThrownBy(() -> LabManifest.read(file))
        .hasMessage(
            file + ": no cloud-controller-manager in it, nothing for the lab to bootstrap with");
  }

  @Test
  void theLabStopsAtABadManifestBeforeItStartsAControlPlane() throws IOException {
    Path file = dir.resolve("broken.yaml");
    Files.writeString(file, "foo: [unclosed\n");
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    CommandLine ccm4j =
        Ccm4j.commandLine().setErr(new PrintWriter(err)).setOut(new PrintWriter(out));

    int exit = ccm4j.execute("lab", "--manifest=" + file, "--report=" + dir.resolve("report"));

    assertThat(exit).isEqualTo(2);
    // SnakeYAML finds the bracket unclosed at the end of the text, on line 2.
    assertThat(err.toString()).contains("--manifest: " + file + ":2: not valid YAML");
    assertThat(dir.resolve("report")).doesNotExist();
  }
}
