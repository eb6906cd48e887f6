package io.ccm4j.controllers;

import io.ccm4j.runtime.controller.Controller;

/**
 * Builds one controller; registers its informer handlers but starts nothing. An entry of {@link
 * Controllers} picks the controller's own record out of {@code settings} and passes it with the
 * context (upstream's {@code app/core.go} passes each controller its own config the same way), so
 * the controller never sees the others' settings.
 */
@FunctionalInterface
public interface ControllerFactory {

  /**
   * @throws ControllerUnavailableException when the controller cannot run here, for example because
   *     the cloud lacks the facet it needs (N1, L1, S1, R1): the manager warns and goes on without
   *     it
   */
  Controller create(ControllerContext context, ControllerSettings settings)
      throws ControllerUnavailableException;
}
