package io.ccm4j.controllers.service;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.OfflineContext;
import org.junit.jupiter.api.Test;

class ServiceLoadBalancerControllerTest {

  @Test
  void S1_aCloudWithoutLoadBalancersIsReportedWithUpstreamsMessage() {
    CloudProvider noLoadBalancers = () -> "bare";
    ControllerContext context = OfflineContext.of(noLoadBalancers);

    assertThatThrownBy(
            () -> Controllers.SERVICE_LB.factory().create(context, ControllerSettings.defaults()))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("the cloud provider does not support external load balancers");
  }
}
