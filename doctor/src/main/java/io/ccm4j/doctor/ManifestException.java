package io.ccm4j.doctor;

/** A manifest cannot be read; the message names the file and the line. */
public class ManifestException extends Exception {

  public ManifestException(String message) {
    super(message);
  }
}
