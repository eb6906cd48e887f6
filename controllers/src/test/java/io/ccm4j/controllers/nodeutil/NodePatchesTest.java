package io.ccm4j.controllers.nodeutil;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.cloudprovider.NodeAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The patch bodies NodePatches writes without the client's object mapper. */
class NodePatchesTest {

  @Test
  void theAddressesPatchReplacesTheListInOrder() throws Exception {
    String patch =
        NodePatches.addressesPatch(
            List.of(
                new NodeAddress(NodeAddress.Type.InternalIP, "10.0.0.7"),
                new NodeAddress(NodeAddress.Type.Hostname, "node \"a\"\\1")));

    assertThat(new ObjectMapper().readValue(patch, Map.class))
        .isEqualTo(
            Map.of(
                "status",
                Map.of(
                    "addresses",
                    List.of(
                        Map.of("address", "10.0.0.7", "type", "InternalIP"),
                        Map.of("address", "node \"a\"\\1", "type", "Hostname")))));
    assertThat(NodePatches.addressesPatch(List.of())).isEqualTo("{\"status\":{\"addresses\":[]}}");
  }
}
