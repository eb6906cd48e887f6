package io.ccm4j.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KubernetesVersionTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "v1.37.2, v1.37.2, true, true",
    "1.37.2, v1.37.2, true, true",
    "v1.20.2, v1.20.2, false, false",
    "v1.24.0-alpha.1, v1.24.0, true, false",
    "v1.23.17+k3s1, v1.23.17, false, false",
  })
  void readsWhatBinariesReport(String text, String normalised, boolean from24, boolean from30) {
    KubernetesVersion version = KubernetesVersion.parse(text);

    assertThat(version).hasToString(normalised);
    assertThat(version.atLeast(24)).isEqualTo(from24);
    assertThat(version.atLeast(30)).isEqualTo(from30);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "latest", "v1.37", "Kubernetes v1.37.2"})
  void refusesWhatIsNoVersionNamingIt(String text) {
    assertThatThrownBy(() -> KubernetesVersion.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "'");
  }
}
