package io.ccm4j.lab;

/** The shared resources the lab's tests lock (JUnit's {@code @ResourceLock}), spelled once. */
public final class LabResources {

  /**
   * The machine's CPU as the labs' clusters use it: the lab on real kubelets holds it alone, {@code
   * LabIT}'s tests share it with each other. {@code LabIT}'s deadlock verdicts must come within a
   * bound, which a real lab running beside them could push them past.
   */
  public static final String LAB_CLUSTERS = "io.ccm4j.lab.clusters";

  private LabResources() {}
}
