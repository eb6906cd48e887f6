package io.ccm4j.controllers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ControllerSelectionTest {

  @ParameterizedTest(name = "--controllers={0} enables {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "*                         | cloud-node-controller,cloud-node-lifecycle-controller,service-lb-controller,node-ipam-controller,node-route-controller",
        "*,-route                  | cloud-node-controller,cloud-node-lifecycle-controller,service-lb-controller,node-ipam-controller",
        "-route,*,-nodeipam        | cloud-node-controller,cloud-node-lifecycle-controller,service-lb-controller",
        "cloud-node                | cloud-node-controller",
        "service,cloud-node        | cloud-node-controller,service-lb-controller",
        "route,-route              | node-route-controller",
        "-service-lb-controller,*  | cloud-node-controller,cloud-node-lifecycle-controller,node-ipam-controller,node-route-controller",
        "-cloud-node               | ''",
        "*,node-lifecycle          | cloud-node-controller,cloud-node-lifecycle-controller,service-lb-controller,node-ipam-controller,node-route-controller,node-lifecycle-controller",
        "nodeipam,route            | node-ipam-controller,node-route-controller",
      })
  void enablesWhatTheFirstMatchingEntrySays(String flag, String expected) {
    ControllerSelection selection = ControllerSelection.parse(Arrays.asList(flag.split(",")));

    List<String> expectedNames =
        expected.isEmpty() ? List.of() : Arrays.asList(expected.split(","));
    assertThat(selection.enabled()).containsExactlyElementsOf(expectedNames);
  }

  @ParameterizedTest
  @CsvSource({"bogus", "-bogus", "node-controller"})
  void unknownNamesAreRejectedByName(String entry) {
    assertThatThrownBy(() -> ControllerSelection.parse(List.of("*", entry), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "\"" + entry.replaceFirst("^-", "") + "\" is not in the list of known controllers");
  }

  @ParameterizedTest
  @CsvSource({"'*', false", "'*,cloud-node-controller', true", "'cloud-node-controller,*', true"})
  void aControllerDisabledByDefaultRunsOnlyWhenNamed(String flag, boolean enabled) {
    ControllerSelection selection =
        ControllerSelection.parse(
            Arrays.asList(flag.split(",")), Set.of(Controllers.CLOUD_NODE.name()));

    assertThat(selection.isEnabled(Controllers.CLOUD_NODE.name())).isEqualTo(enabled);
  }

  @ParameterizedTest
  @CsvSource({
    "'*', true",
    "'*,kubevirt_eps_controller', true",
    "'*,-kubevirt_eps_controller', false",
    "'-kubevirt_eps_controller,*', false",
    "'cloud-node', false",
    "'cloud-node,kubevirt_eps_controller', true"
  })
  void k4_upstreamKubevirtsEndpointSliceControllerIsTheProvidersAndEnabledByTheStar(
      String flag, boolean enabled) {
    ControllerSelection selection = ControllerSelection.parse(Arrays.asList(flag.split(",")));

    assertThat(selection.isEnabled("kubevirt_eps_controller")).isEqualTo(enabled);
    // The manager's own controllers are as without the entry.
    assertThat(selection.enabled())
        .isEqualTo(
            ControllerSelection.parse(
                    Arrays.stream(flag.split(","))
                        .filter(e -> !e.endsWith("kubevirt_eps_controller"))
                        .toList())
                .enabled());
    if (flag.contains("kubevirt_eps_controller")) {
      assertThat(selection.providerControllerNotes())
          .singleElement()
          .asString()
          .startsWith("kubevirt_eps_controller: ")
          .contains("enableEPSController");
    } else {
      assertThat(selection.providerControllerNotes()).isEmpty();
    }
  }
}
