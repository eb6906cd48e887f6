package io.ccm4j.controllers;

/** A controller cannot run with this cloud or configuration; not fatal to the manager. */
public class ControllerUnavailableException extends Exception {

  public ControllerUnavailableException(String message) {
    super(message);
  }
}
