package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeVirtEndpointSlicesTest {

  private static VirtualMachineInstance vmi(String ips) {
    return new VirtualMachineInstance(
        "worker-1",
        "",
        "",
        KubeVirtApi.PHASE_RUNNING,
        "infra-a",
        List.of(
            new VirtualMachineInstance.Interface(
                KubeVirtApi.DEFAULT_INTERFACE, Arrays.asList(ips.split(" ")))));
  }

  /**
   * K74: the first address of the slice's family that the API server takes in an EndpointSlice; one
   * it refuses (link-local, loopback, unspecified, link-local multicast) would fail the whole
   * slice, every VMI's endpoint with it.
   */
  @ParameterizedTest(name = "{0} as {1} -> {2}")
  @CsvSource({
    "10.60.0.11 fd00::11, IPv4, 10.60.0.11",
    "10.60.0.11 fd00::11, IPv6, fd00::11",
    "fe80::1 fd00::11, IPv6, fd00::11",
    "fe80::1, IPv6, ''",
    "169.254.0.5 10.60.0.11, IPv4, 10.60.0.11",
    "127.0.0.1 ::1 0.0.0.0 :: 10.60.0.11 fd00::11, IPv4, 10.60.0.11",
    "127.0.0.1 ::1 0.0.0.0 :: 10.60.0.11 fd00::11, IPv6, fd00::11",
    "ff02::1 224.0.0.1 fd00::11, IPv6, fd00::11",
    "::ffff:10.60.0.11 fd00::11, IPv6, fd00::11",
    "not-an-ip 10.60.0.11, IPv4, 10.60.0.11",
  })
  void k74_theFirstAddressOfTheFamilyThatAnEndpointMayHold(
      String ips, String addressType, String expected) {
    assertThat(KubeVirtEndpointSlices.address(vmi(ips), addressType).orElse(""))
        .isEqualTo(expected);
  }
}
