package io.ccm4j.doctor;

/**
 * One recommendation a workload violates, with where it comes from ({@code source}, {@code
 * sourceUrl}: a page the user can open).
 */
public record Finding(
    String file,
    int line,
    String kind,
    String name,
    String rule,
    Rule.Severity severity,
    String source,
    String sourceUrl,
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
        rule.source().title(),
        rule.source().url(),
        rule.consequence(),
        rule.fix());
  }
}
