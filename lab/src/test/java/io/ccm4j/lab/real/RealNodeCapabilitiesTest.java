package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one line that says why this machine cannot run real nodes, or nothing when it can. */
class RealNodeCapabilitiesTest {

  private static final String WITH_OVERLAY = "nodev\tsysfs\nnodev\ttmpfs\n\text4\nnodev\toverlay\n";
  private static final Set<String> ALL =
      Set.of("containerd", "ctr", "runc", "busybox", "socat", "unshare", "nsenter", "ip");

  @ParameterizedTest(name = "root={0}, overlay={1}, without {2}: {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "false | true  | -          | real kubelets need root",
        "true  | false | -          | real kubelets need the overlay filesystem",
        "true  | true  | containerd | real kubelets need containerd (Debian package containerd)",
        "true  | true  | runc       | real kubelets need runc (Debian package runc)",
        "true  | true  | busybox    | real kubelets need busybox (Debian package busybox-static)",
        "true  | true  | socat      | real kubelets need socat (Debian package socat)",
        "true  | true  | nsenter    | real kubelets need nsenter (Debian package util-linux)",
        "true  | true  | -          | -",
      })
  void namesTheFirstMissingCapability(
      boolean root, boolean overlay, String without, String expected) {
    String filesystems = overlay ? WITH_OVERLAY : "nodev\tsysfs\n\text4\n";

    var missing =
        RealNodeCapabilities.missing(
            root, filesystems, command -> ALL.contains(command) && !command.equals(without));

    if (expected.equals("-")) {
      assertThat(missing).isEmpty();
    } else {
      assertThat(missing).hasValueSatisfying(line -> assertThat(line).startsWith(expected));
      assertThat(missing.get()).doesNotContain("\n");
    }
  }
}
