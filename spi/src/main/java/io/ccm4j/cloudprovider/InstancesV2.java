package io.ccm4j.cloudprovider;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.Optional;

/**
 * Instance information, keyed by the whole Node object (spec §2, InstancesV2).
 *
 * <p>Finding the node's instance: by {@code spec.providerID} when the node has one, else by what
 * else the node carries (its name, labels, annotations). A node the cloud-node controller has not
 * initialised yet has no provider ID, and every method is asked about such nodes (N6, the provider
 * contract kit's {@code UNINITIALISED_NODE_NOT_GONE}), so a lookup by provider ID alone is not
 * enough. The nodes are the controllers' cached objects: read them, never change them.
 *
 * <h2>Bulk calls</h2>
 *
 * Besides the per-node methods of upstream, a provider may answer many nodes in one cloud request
 * (EC2's {@code DescribeInstances} takes 1,000 ids; most clouds have a list endpoint). It says so
 * with {@link #maxNodesPerCall()} above 1 and overrides {@link #instancesExist}, {@link
 * #instancesShutdown} and {@link #instancesMetadata}. Their defaults ask node by node through the
 * per-node methods, so a provider that offers only those keeps working unchanged. The contract:
 *
 * <ul>
 *   <li>A caller passes at most {@link #maxNodesPerCall()} nodes, none twice, and takes one call
 *       for one request against the cloud's quota (one token of {@code --cloud-api-qps}).
 *   <li>Answers are keyed by the node's {@code metadata.name}; there is no order, neither in which
 *       the provider looks the nodes up nor in the answer.
 *   <li>A node's answer means exactly what the per-node method's return value means; in particular
 *       {@code false} from {@link #instancesExist} deletes a NotReady node, so a provider answers
 *       it only when it is sure the instance is gone (a list that did not cover the node is not
 *       proof).
 *   <li>A node's error ({@link BulkAnswers#errors()}) is what the per-node method would have
 *       thrown, and fails that node only. An error is never "gone": {@link
 *       InstanceNotFoundException} from {@link #instancesExist} is an error like any other.
 *   <li>A node missing from the answer (a partial result: a page limit, a region that did not
 *       answer) was not answered; the caller treats it like an error for that node and asks again
 *       later.
 *   <li>An exception thrown by the bulk method fails every node of the call ({@link
 *       ThrottledException} when the cloud throttled the request).
 * </ul>
 */
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
   * the node stays uninitialised until its next event. An instance that is gone is {@link
   * InstanceNotFoundException} (or empty), never metadata; an instance that exists but is stopped
   * has its metadata.
   */
  Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException;

  /**
   * How many nodes one bulk call may carry. 1, the default, means the provider has no bulk
   * requests: callers then count each node of a bulk call as a request of its own.
   */
  default int maxNodesPerCall() {
    return 1;
  }

  /** {@link #instanceExists} for many nodes, under the contract above. */
  default BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, this::instanceExists);
  }

  /** {@link #instanceShutdown} for many nodes, under the contract above. */
  default BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes) throws CloudException {
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, this::instanceShutdown);
  }

  /**
   * {@link #instanceMetadata} for many nodes, under the contract above; a node whose answer is
   * empty has "nothing yet", as from the per-node method.
   */
  default BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
      throws CloudException {
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, this::instanceMetadata);
  }

  /** The key of a node in {@link BulkAnswers}: its {@code metadata.name}. */
  static String nodeName(Node node) {
    return node.getMetadata() == null ? "" : node.getMetadata().getName();
  }
}
