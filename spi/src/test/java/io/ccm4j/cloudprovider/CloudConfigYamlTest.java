package io.ccm4j.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A cloud config's errors are told in YAML's words, naming the field: never a Java type. */
class CloudConfigYamlTest {

  record Instance(String name, int cpus) {}

  record Config(
      List<Instance> instances, Map<String, String> labels, double latency, boolean dryRun) {}

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          instances: 3                  | line 1: field "instances": expected a list, got a whole number (3)
          instances: [{cpus: many}]     | line 1: field "instances[0].cpus": expected a whole number, got a string (many)
          instances: [3]                | line 1: field "instances[0]": expected a map of fields, got a whole number (3)
          labels: [a, b]                | line 1: field "labels": expected a map, got a list
          latency: fast                 | line 1: field "latency": expected a number, got a string (fast)
          dryRun: [yes]                 | line 1: field "dryRun": expected true or false, got a list
          """)
  void aValueOfTheWrongKindNamesTheFieldAndBothKinds(String yaml, String message) {
    assertThatThrownBy(() -> CloudConfigYaml.parse(yaml, "cloud.yaml", Config.class))
        .isInstanceOf(CloudConfigException.class)
        .hasMessage("cloud.yaml: " + message)
        .message()
        .doesNotContain("java.", "Cannot deserialize", "JsonToken");
  }

  @Test
  void aWellTypedConfigReads() throws Exception {
    Config config = CloudConfigYaml.parse("instances: [{name: a, cpus: 2}]", "c", Config.class);

    assertThat(config.instances()).containsExactly(new Instance("a", 2));
  }

  /** The line of the offending key or value, not the end of the mapping around it. */
  @Test
  void anErrorNamesTheLineItIsOn() {
    assertThatThrownBy(
            () ->
                CloudConfigYaml.parse(
                    "latency: 1\nbogus: 2\ndryRun: true\nlabels: {}\n", "c.yaml", Config.class))
        .hasMessageStartingWith("c.yaml: line 2: unknown field \"bogus\" (known: ");
    assertThatThrownBy(
            () ->
                CloudConfigYaml.parse(
                    "latency: 1\ninstances:\n- name: a\n  cpus: 2\n- name: b\n  cores: 3\n"
                        + "dryRun: true\n",
                    "c.yaml",
                    Config.class))
        .hasMessageStartingWith("c.yaml: line 6: unknown field \"instances[1].cores\"");
    assertThatThrownBy(
            () -> CloudConfigYaml.parse("latency: 1\ndryRun: [yes]\n", "c.yaml", Config.class))
        .hasMessage("c.yaml: line 2: field \"dryRun\": expected true or false, got a list");
    assertThatThrownBy(
            () -> CloudConfigYaml.parse("latency: 1\n\tdryRun: true\n", "c.yaml", Config.class))
        .hasMessageStartingWith("c.yaml: line 2: not valid YAML: ");
  }

  /**
   * SnakeYAML's message spans lines, quoting the text with a caret under the problem: the error is
   * one line, its problem and what was being parsed.
   */
  @Test
  void textThatIsNoYamlIsOneLineNamingTheProblem() {
    assertThatThrownBy(() -> CloudConfigYaml.parse("instances: [\n", "c.yaml", Config.class))
        .isInstanceOf(CloudConfigException.class)
        .hasMessage(
            "c.yaml: line 2: not valid YAML: expected the node content, but found '<stream end>'"
                + " (while parsing a flow node)");
  }

  /** Any reader's failure on a YAML text, told as a user who wrote YAML reads it. */
  @Test
  void problemNamesTheLineOrTheFieldInOneLine() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(
            new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());

    assertThat(
            CloudConfigYaml.problem(
                catchThrowable(() -> yaml.readValue("instances: [\n", Config.class))))
        .contains(
            "line 2: not valid YAML: expected the node content, but found '<stream end>'"
                + " (while parsing a flow node)");
    assertThat(
            CloudConfigYaml.problem(
                catchThrowable(() -> yaml.readValue("instances: oops\n", Config.class))))
        .contains("field \"instances\": expected a list");
    assertThat(CloudConfigYaml.problem(new java.io.IOException("no such file"))).isEmpty();
  }

  /** /dev/zero never ends: refused after a mebibyte, not read until the heap is full. */
  @Test
  void aFileFarLargerThanAConfigIsRefusedUnread() {
    java.nio.file.Path zero = java.nio.file.Path.of("/dev/zero");
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(zero));

    assertThatThrownBy(() -> CloudConfigYaml.read(zero, Config.class))
        .isInstanceOf(CloudConfigException.class)
        .hasMessage(
            "/dev/zero: larger than 1024 KiB: a cloud config is a few kilobytes (is it the right"
                + " file?)");
  }

  @Test
  void aKeyGivenTwiceIsAnError() {
    assertThatThrownBy(
            () ->
                CloudConfigYaml.parse(
                    "latency: 1\ndryRun: true\nlatency: 2\n", "c.yaml", Config.class))
        .isInstanceOf(CloudConfigException.class)
        .hasMessage("c.yaml: line 3: not valid YAML: Duplicate field 'latency'");
  }
}
