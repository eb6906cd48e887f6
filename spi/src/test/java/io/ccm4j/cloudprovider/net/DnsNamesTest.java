package io.ccm4j.cloudprovider.net;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DnsNamesTest {

  @Test
  void labelsAndSubdomainsAsTheApiServerChecksThem() {
    assertThat(DnsNames.isLabel("kube-system")).isTrue();
    assertThat(DnsNames.isLabel("a".repeat(63))).isTrue();
    assertThat(DnsNames.isLabel("a".repeat(64))).isFalse();
    assertThat(DnsNames.isLabel("kube.system")).isFalse();
    assertThat(DnsNames.isLabel("-x")).isFalse();
    assertThat(DnsNames.isLabel("")).isFalse();
    assertThat(DnsNames.isLabel(null)).isFalse();

    assertThat(DnsNames.isSubdomain("cloud-controller-manager")).isTrue();
    assertThat(DnsNames.isSubdomain("ccm.example.com")).isTrue();
    assertThat(DnsNames.isSubdomain("Bad_Name")).isFalse();
    assertThat(DnsNames.isSubdomain("a.")).isFalse();
    assertThat(DnsNames.isSubdomain("a".repeat(254))).isFalse();
    assertThat(DnsNames.isSubdomain("")).isFalse();
  }
}
