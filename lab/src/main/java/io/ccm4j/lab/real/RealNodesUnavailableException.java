package io.ccm4j.lab.real;

/** This machine cannot run the lab's real nodes; the message names what it lacks, in one line. */
public final class RealNodesUnavailableException extends RuntimeException {

  public RealNodesUnavailableException(String message) {
    super(message);
  }
}
