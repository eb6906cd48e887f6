package io.ccm4j.app.lab;

import java.util.List;

/**
 * How a lab run ended.
 *
 * @param verdict {@code bootstrapped}, {@code deadlocked} or {@code collision}
 * @param seconds when the verdict was reached
 * @param explanation the cycle or collision, in words (empty when bootstrapped)
 */
public record LabResult(
    String scenario, String verdict, double seconds, List<String> explanation, Timeline timeline) {

  public static final String BOOTSTRAPPED = "bootstrapped";
  public static final String DEADLOCKED = "deadlocked";
  public static final String COLLISION = "collision";

  public boolean succeeded() {
    return BOOTSTRAPPED.equals(verdict);
  }
}
