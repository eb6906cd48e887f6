package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.ZONES_AGREE;

import io.ccm4j.cloudprovider.Zones;
import io.fabric8.kubernetes.api.model.Node;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Zones (deprecated upstream): one instance, one zone, however it is asked. */
public interface ZonesContract extends FacetContract {

  @Test
  @Holds(ZONES_AGREE)
  default void n6_theZoneByProviderIdIsTheZoneByNodeName() throws Exception {
    Zones zones = session().zones();
    Node node = session().harness().runningInstance(session().provider());
    String providerId = ContractObjects.providerId(node);
    Assumptions.assumeFalse(
        providerId.isEmpty(), "ProviderHarness.runningInstance gives a node without a providerID");
    Zones.Zone byId = zones.zoneByProviderId(providerId);
    Zones.Zone byName = zones.zoneByNodeName(node.getMetadata().getName());
    ZONES_AGREE.require(
        byId != null && byId.equals(byName),
        "zoneByProviderId(%s) is %s, zoneByNodeName(%s) is %s"
            .formatted(providerId, byId, node.getMetadata().getName(), byName));
  }
}
