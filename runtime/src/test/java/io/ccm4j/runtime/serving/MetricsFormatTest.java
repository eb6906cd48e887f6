package io.ccm4j.runtime.serving;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetricsFormatTest {

  private static final String PROTOBUF =
      "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";

  private static final String TEXT = "text/plain; version=0.0.4; charset=utf-8; escaping=";
  private static final String PROTOBUF_ANSWER =
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
          + " encoding=delimited; escaping=";

  /**
   * The content type upstream's handler answers for each {@code Accept}: each row's answer is what
   * Go's {@code expfmt.Negotiate} (prometheus/common v0.70.0, which Kubernetes 1.37.2 builds with)
   * returned for that header.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // The format: the first range by quality that is the protobuf or the text 0.0.4
        "'" + PROTOBUF + "'|" + PROTOBUF_ANSWER + "underscores",
        "'"
            + PROTOBUF
            + ";q=0.6,text/plain;version=0.0.4;q=0.4'|"
            + PROTOBUF_ANSWER
            + "underscores",
        "'text/plain;version=0.0.4;q=0.4,"
            + PROTOBUF
            + ";q=0.6'|"
            + PROTOBUF_ANSWER
            + "underscores",
        "'" + PROTOBUF + ";q=0.4,text/plain;version=0.0.4;q=0.5'|" + TEXT + "underscores",
        "'" + PROTOBUF + ";q=0.4,text/plain;q=0.5'|" + TEXT + "underscores",
        "'application/openmetrics-text;version=1.0.0;q=0.9,text/plain;version=1.0.0;q=0.8,"
            + PROTOBUF
            + ";q=0.7,text/plain;version=0.0.4;q=0.5'|"
            + PROTOBUF_ANSWER
            + "underscores",
        "'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'|"
            + TEXT
            + "underscores",
        "'application/vnd.google.protobuf;proto=other.Family;encoding=delimited'|"
            + TEXT
            + "underscores",
        "'*/*'|" + TEXT + "underscores",
        "''|" + TEXT + "underscores",
        "'text/plain'|" + TEXT + "underscores",
        // The escaping the scraper names, or underscores
        "'text/plain;version=0.0.4;escaping=allow-utf-8'|" + TEXT + "allow-utf-8",
        "'text/plain;version=0.0.4;escaping=dots'|" + TEXT + "dots",
        "'text/plain;version=0.0.4;escaping=values'|" + TEXT + "values",
        "'text/plain;version=0.0.4;escaping=underscores'|" + TEXT + "underscores",
        "'" + PROTOBUF + ";escaping=dots'|" + PROTOBUF_ANSWER + "dots",
        "'" + PROTOBUF + ";escaping=values'|" + PROTOBUF_ANSWER + "values",
        // Prometheus 3's default Accept, and with native histograms
        "'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1'|"
            + TEXT
            + "allow-utf-8",
        "'"
            + PROTOBUF
            + ";escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.2,*/*;q=0.1'|"
            + PROTOBUF_ANSWER
            + "allow-utf-8",
        // The last known scheme on the ranges read up to the one that decides; an unknown one
        // ignored
        "'text/plain;version=0.0.4;escaping=bogus'|" + TEXT + "underscores",
        "'text/html;escaping=dots, text/plain;version=0.0.4;escaping=bogus'|" + TEXT + "dots",
        "'text/plain;version=0.0.4;escaping=dots;q=0.2,text/plain;version=1.0.0;escaping=values;q=0.5'|"
            + TEXT
            + "dots",
        "'text/plain;version=0.0.4;escaping=values,text/plain;version=0.0.4;escaping=dots'|"
            + TEXT
            + "values",
        "'text/plain;version=0.0.4;escaping=Values'|" + TEXT + "underscores",
        "'text/plain;version=0.0.4;Escaping=values'|" + TEXT + "underscores",
        "'text/plain;version=0.0.4;escaping='|" + TEXT + "underscores",
        // goautoneg's order: a range without * before one with it, whatever their qualities
        "'text/plain;version=0.0.4;q=0.5,*/*;escaping=dots;q=0.9'|" + TEXT + "dots",
        "'*/*;escaping=dots;q=0.9,text/plain;version=0.0.4;q=0.5'|" + TEXT + "underscores",
        "'*/*;escaping=dots;q=0.1,text/plain;version=0.0.4;q=0.5'|" + TEXT + "underscores",
        "'*;escaping=dots,text/plain;q=0.5'|" + TEXT + "underscores",
        // goautoneg's parsing: only spaces trimmed, malformed clauses and parameters left out, q a
        // 32-bit float
        "'text/plain;version=0.0.4;escaping=dots=x'|" + TEXT + "underscores",
        "'text/plain;version=0.0.4;escaping = values'|" + TEXT + "values",
        "'text/plain ; version=0.0.4 ; escaping=values'|" + TEXT + "values",
        "'text/plain/x;escaping=dots,text/plain;q=0.5'|" + TEXT + "underscores",
        "'text/plain/;escaping=dots'|" + TEXT + "dots",
        "'text/;escaping=dots,text/plain;q=0.5'|" + TEXT + "underscores",
        "'*/;escaping=dots,text/plain;q=0.5'|" + TEXT + "underscores",
        "'text/plain;version=;escaping=dots'|" + TEXT + "dots",
        "'\ttext/plain;escaping=dots'|" + TEXT + "dots",
        "'application/openmetrics-text;escaping=values;q=abc,text/plain;q=0.5'|"
            + TEXT
            + "underscores",
        "'application/openmetrics-text;escaping=values;q=inf,text/plain;q=0.5'|" + TEXT + "values",
        "'application/openmetrics-text;escaping=values;q=1d,text/plain;q=0.5'|"
            + TEXT
            + "underscores",
        "'application/openmetrics-text;escaping=values;q= 0.9,text/plain;q=0.5'|"
            + TEXT
            + "underscores",
        "'text/plain;version=0.0.4;q=0.3,text/html;escaping=dots;q=0.30000001'|"
            + TEXT
            + "underscores",
      })
  void theContentTypeIsTheOneGoNegotiates(String accept, String contentType) {
    assertThat(MetricsFormat.negotiate(accept, true).contentType()).isEqualTo(contentType);
  }

  @Test
  void noAcceptIsTheTextWithUnderscores() {
    assertThat(MetricsFormat.negotiate(null, true).contentType()).isEqualTo(TEXT + "underscores");
  }

  @Test
  void withoutTheProtobufWriterTheTextAnswersInTheEscapingAsked() {
    assertThat(MetricsFormat.negotiate(PROTOBUF + ";escaping=allow-utf-8", false).contentType())
        .isEqualTo(TEXT + "allow-utf-8");
  }
}
