package io.ccm4j.controllers.cloudnodelifecycle;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class CloudNodeLifecycleControllerTest {

  private static final CloudProvider NO_INSTANCES = () -> "bare";

  private static ControllerContext context() {
    return new ControllerContext(
        null,
        null,
        NO_INSTANCES,
        "kubernetes",
        new SimpleMeterRegistry(),
        c -> null,
        ControllerSettings.defaults());
  }

  @Test
  void L1_withoutInstancesItDoesNotStart() {
    assertThatThrownBy(() -> new CloudNodeLifecycleController(context()))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("cloud provider does not support instances");
  }
}
