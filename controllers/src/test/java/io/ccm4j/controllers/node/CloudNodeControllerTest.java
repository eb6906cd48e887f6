package io.ccm4j.controllers.node;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.OfflineContext;
import org.junit.jupiter.api.Test;

class CloudNodeControllerTest {

  private static final CloudProvider NO_INSTANCES = () -> "bare";

  @Test
  void N1_withoutInstancesItDoesNotStart() {
    assertThatThrownBy(
            () ->
                new CloudNodeController(
                    OfflineContext.of(NO_INSTANCES), CloudNodeSettings.defaults()))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("cloud provider does not support instances");
  }
}
