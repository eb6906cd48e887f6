package io.ccm4j.cloudprovider.api;

/** The values of a node's or a pod's {@code status.conditions[].status}. */
public final class ConditionStatus {

  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  private ConditionStatus() {}
}
