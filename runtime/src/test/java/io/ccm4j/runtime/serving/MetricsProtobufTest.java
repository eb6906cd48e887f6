package io.ccm4j.runtime.serving;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetricsProtobufTest {

  private static final String PROTOBUF =
      "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";

  /** Go's expfmt.Negotiate: the first range by quality that is the protobuf or the text decides. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        PROTOBUF + "|true",
        PROTOBUF + ";q=0.6,text/plain;version=0.0.4;q=0.4|true",
        "text/plain;version=0.0.4;q=0.4," + PROTOBUF + ";q=0.6|true",
        PROTOBUF + ";q=0.4,text/plain;version=0.0.4;q=0.5|false",
        PROTOBUF + ";q=0.4,text/plain;q=0.5|false",
        "application/openmetrics-text;version=1.0.0;q=0.9,text/plain;version=1.0.0;q=0.8,"
            + PROTOBUF
            + ";q=0.7,text/plain;version=0.0.4;q=0.5|true",
        "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1|false",
        "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text|false",
        "application/vnd.google.protobuf;proto=other.Family;encoding=delimited|false",
        "*/*|false",
        "''|false",
      })
  void theScraperAsksForProtobufAsGoNegotiates(String accept, boolean protobuf) {
    assertThat(MetricsProtobuf.asked(accept)).isEqualTo(protobuf);
  }

  @org.junit.jupiter.api.Test
  void noAcceptIsTheText() {
    assertThat(MetricsProtobuf.asked(null)).isFalse();
  }
}
