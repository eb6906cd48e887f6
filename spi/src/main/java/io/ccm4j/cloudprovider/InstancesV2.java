package io.ccm4j.cloudprovider;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Optional;

/** Instance information, keyed by the whole Node object (spec §2, InstancesV2). */
public interface InstancesV2 {

  /**
   * Whether the node's instance still exists. A stopped instance exists. Answering {@code false}
   * makes the lifecycle controller delete a NotReady node, so a provider must throw rather than
   * answer {@code false} when it cannot tell.
   */
  boolean instanceExists(Node node) throws CloudException;

  /** Whether the node's instance is shut down. */
  boolean instanceShutdown(Node node) throws CloudException;

  /**
   * Everything the cloud knows about the node's instance, in one call. Empty means "nothing yet":
   * the node stays uninitialised until its next event.
   */
  Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException;
}
