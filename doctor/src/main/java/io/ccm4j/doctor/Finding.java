package io.ccm4j.doctor;

/** One recommendation a workload violates. */
public record Finding(
    String file,
    int line,
    String kind,
    String name,
    String rule,
    Rule.Severity severity,
    String seed,
    String consequence,
    String fix) {

  static Finding of(CcmWorkload workload, Rule rule) {
    return new Finding(
        workload.source().file().toString(),
        workload.source().line(),
        workload.kind(),
        workload.name(),
        rule.id(),
        rule.severity(),
        rule.seed(),
        rule.consequence(),
        rule.fix());
  }
}
