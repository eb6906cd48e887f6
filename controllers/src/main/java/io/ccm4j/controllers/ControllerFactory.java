package io.ccm4j.controllers;

import io.ccm4j.runtime.controller.Controller;

/** Builds one controller; registers its informer handlers but starts nothing. */
@FunctionalInterface
public interface ControllerFactory {

  /**
   * @throws ControllerUnavailableException when the controller cannot run here, for example because
   *     the cloud lacks the facet it needs (N1, L1, S1, R1): the manager warns and goes on without
   *     it
   */
  Controller create(ControllerContext context) throws ControllerUnavailableException;
}
