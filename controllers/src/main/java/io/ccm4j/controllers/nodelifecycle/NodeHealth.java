package io.ccm4j.controllers.nodelifecycle;

import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Instant;

/**
 * What the controller remembers about a node between passes (node-lifecycle spec §2.1): when it
 * last saw a heartbeat, on its own clock, when Ready last changed, the Ready condition and the
 * Lease renew time it saw last.
 */
record NodeHealth(
    Instant probeTimestamp,
    Instant readyTransitionTimestamp,
    NodeCondition savedReady,
    Instant leaseRenewTime) {}
