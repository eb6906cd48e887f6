package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
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

  /** "T", "F" or "-" (unset) for ready, serving and terminating, as "TF-". */
  private static EndpointConditions tenantConditions(String spelled) {
    if (spelled.equals("null")) {
      return null;
    }
    return new EndpointConditions(
        flag(spelled.charAt(0)), flag(spelled.charAt(1)), flag(spelled.charAt(2)));
  }

  private static Boolean flag(char c) {
    return c == '-' ? null : c == 'T';
  }

  private static String show(EndpointConditions conditions) {
    return (conditions.getReady() ? "T" : "F")
        + (conditions.getServing() ? "T" : "F")
        + (conditions.getTerminating() ? "T" : "F");
  }

  /**
   * K121 (users' request), K74: a Running VMI's endpoint is ready only while one of the tenant
   * Service's endpoints on its node is; serving while one is ready or serving and terminating (the
   * tenant kube-proxy's fallback under externalTrafficPolicy Local); terminating when none is ready
   * and one is terminating. Unset ready and serving are true, unset terminating false (the
   * EndpointSlice API). A VMI not Running keeps upstream's conditions.
   */
  @ParameterizedTest(name = "{0} with tenant endpoints {1} -> {2}")
  @CsvSource({
    "Running, TTF, TTF",
    "Running, ---, TTF", // all unset: ready
    "Running, null, TTF", // no conditions at all: ready
    "Running, FFF, FFF", // a rebooting guest: its pods not ready
    "Running, F--, FFF", // not ready; serving unset is true, but not terminating: no fallback
    "Running, FTF, FFF", // serving but neither ready nor terminating: kube-proxy sends nothing
    "Running, FTT, FTT", // all terminating, still serving: the fallback
    "Running, FFT, FFT", // terminating and no longer serving
    "Running, FFF FTT, FTT", // a new pod not ready yet beside a terminating old one
    "Running, FFF TTF, TTF", // one ready pod is enough
    "Running, FTT TTF, TTF",
    "Running, TTT, TTF", // ready while terminating (publishNotReadyAddresses): ready
    "Pending, TTF, FFF",
    "Scheduled, TTF, FFF",
    "Unknown, TTF, FFF",
    "Failed, TTF, FFT",
    "Succeeded, FFF, FFT",
  })
  void k121_theVmisEndpointFollowsItsTenantEndpoints(String phase, String tenant, String expected) {
    List<EndpointConditions> conditions =
        Stream.of(tenant.split(" ")).map(KubeVirtEndpointSlicesTest::tenantConditions).toList();
    assertThat(show(KubeVirtEndpointSlices.conditions(phase, conditions))).isEqualTo(expected);
  }

  private static List<Endpoint> endpoints(String addresses) {
    return addresses.isBlank()
        ? List.of()
        : Stream.of(addresses.split(" "))
            .map(a -> new EndpointBuilder().withAddresses("10.60.0." + a).build())
            .toList();
  }

  /** Slices as "1 2|3": the last octets of their endpoints, slice by slice. */
  private static String show(List<List<Endpoint>> slices) {
    return String.join(
        "|",
        slices.stream()
            .map(
                slice ->
                    String.join(
                        " ",
                        slice.stream()
                            .map(e -> e.getAddresses().get(0).substring("10.60.0.".length()))
                            .toList()))
            .toList());
  }

  /**
   * K75 with at most 2 endpoints a slice: an endpoint stays in the slice it is in, so no endpoint
   * still wanted is in no slice between two writes; new endpoints fill the slices with room in
   * order, a slice left empty is reused for them, and the rest go into new slices.
   */
  @ParameterizedTest(name = "{0} + wanted {1} -> {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "'' ; 1 2 3 ; 1 2|3",
        "1 2|3 ; 1 2 3 ; 1 2|3",
        "3|1 2 ; 1 2 3 ; 3|1 2", // slices are not re-sorted
        "1 2|3 ; 1 5 2 3 ; 1 2|3 5", // an endpoint inserted in the order moves none
        "1 2|3 ; 2 3 ; 2|3",
        "1 2|3 ; 1 2 ; 1 2|", // left empty: deleted
        "1 2|3 ; 1 2 7 8 9 ; 1 2|7 8|9", // the emptied slice takes new ones first
        "1 1|2 ; 1 2 ; 1|2", // a duplicate is dropped
      })
  void k75_endpointsStayInTheirSlice(String existing, String wanted, String expected) {
    List<List<Endpoint>> slices =
        existing.isBlank()
            ? List.of()
            : Stream.of(existing.split("\\|", -1))
                .map(KubeVirtEndpointSlicesTest::endpoints)
                .toList();
    assertThat(show(KubeVirtEndpointSlices.pack(slices, endpoints(wanted), 2))).isEqualTo(expected);
  }
}
