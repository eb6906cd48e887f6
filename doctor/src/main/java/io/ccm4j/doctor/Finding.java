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

  /** This finding with another fix. */
  Finding withFix(String otherFix) {
    return new Finding(
        file, line, kind, name, rule, severity, source, sourceUrl, consequence, otherFix);
  }

  static Finding of(CcmWorkload workload, Rule rule) {
    return of(workload, rule, rule.severity(), rule.consequence());
  }

  /** With the severity and consequence this workload gives the rule. */
  static Finding of(CcmWorkload workload, Rule rule, Rule.Severity severity, String consequence) {
    return of(workload, rule, severity, consequence, rule.fix());
  }

  /** With the severity, consequence and fix this workload gives the rule. */
  static Finding of(
      CcmWorkload workload, Rule rule, Rule.Severity severity, String consequence, String fix) {
    return new Finding(
        workload.source().file().toString(),
        workload.source().line(),
        workload.kind(),
        workload.name(),
        rule.id(),
        severity,
        rule.source().title(),
        rule.source().url(),
        consequence,
        fix);
  }
}
