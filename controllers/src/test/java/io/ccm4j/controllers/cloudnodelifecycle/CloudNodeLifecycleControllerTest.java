package io.ccm4j.controllers.cloudnodelifecycle;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.OfflineContext;
import org.junit.jupiter.api.Test;

class CloudNodeLifecycleControllerTest {

  private static final CloudProvider NO_INSTANCES = () -> "bare";

  @Test
  void L1_withoutInstancesItDoesNotStart() {
    assertThatThrownBy(
            () ->
                new CloudNodeLifecycleController(
                    OfflineContext.of(NO_INSTANCES), CloudNodeLifecycleSettings.defaults()))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("cloud provider does not support instances");
  }
}
