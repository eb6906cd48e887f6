package io.ccm4j.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The controller list against upstream's names (spec §1: canonical names, aliases, client names,
 * event sources; node IPAM and node-lifecycle as in kube-controller-manager, node-lifecycle spec
 * §6).
 */
class ControllersTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "cloud-node-controller,           cloud-node,           node-controller,    cloud-node-controller,           true",
    "cloud-node-lifecycle-controller, cloud-node-lifecycle, node-controller,    cloud-node-lifecycle-controller, true",
    "service-lb-controller,           service,              service-controller, service-controller,              true",
    "node-ipam-controller,            nodeipam,             node-controller,    cidrAllocator,                   true",
    "node-route-controller,           route,                route-controller,   route_controller,                true",
    "node-lifecycle-controller,       node-lifecycle,       node-controller,    node-controller,                 false",
  })
  void eachControllerHasUpstreamsNames(
      String name, String alias, String clientName, String eventSource, boolean enabledByDefault) {
    ControllerDescriptor controller = Controllers.find(name).orElseThrow();

    assertThat(controller)
        .extracting(
            ControllerDescriptor::alias,
            ControllerDescriptor::clientName,
            ControllerDescriptor::eventSource,
            ControllerDescriptor::enabledByDefault)
        .containsExactly(alias, clientName, eventSource, enabledByDefault);
    assertThat(Controllers.find(alias)).contains(controller);
  }

  @org.junit.jupiter.api.Test
  void theStartOrderIsFixed() {
    assertThat(Controllers.ALL)
        .extracting(ControllerDescriptor::name)
        .isEqualTo(
            List.of(
                "cloud-node-controller",
                "cloud-node-lifecycle-controller",
                "service-lb-controller",
                "node-ipam-controller",
                "node-route-controller",
                "node-lifecycle-controller"));
  }
}
