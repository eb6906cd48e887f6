package io.ccm4j.controllers;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What a controller is built from, without an API server: enough for the checks its constructor
 * makes before it touches the cluster (a missing facet, missing settings); the settings record is
 * the constructor's second argument.
 */
public final class OfflineContext {

  private OfflineContext() {}

  public static ControllerContext of(CloudProvider cloud) {
    return new ControllerContext(
        "offline",
        null,
        null,
        cloud,
        "kubernetes",
        new SimpleMeterRegistry(),
        null,
        KubeApiContentType.JSON);
  }
}
