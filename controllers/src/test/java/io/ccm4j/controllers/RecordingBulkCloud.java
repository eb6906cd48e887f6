package io.ccm4j.controllers;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.Routes;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A cloud in front of another (the sim) that records every instance call with the nodes it asked
 * about, and can make one node's answer in a bulk call an error while the others are answered.
 */
public final class RecordingBulkCloud implements CloudProvider {

  /** One instance call: its SPI method and the nodes it carried. */
  public record Call(String method, List<String> nodes) {}

  private final CloudProvider delegate;
  private final InstancesV2 instances;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final Set<String> failing = ConcurrentHashMap.newKeySet();

  public RecordingBulkCloud(CloudProvider delegate) {
    this.delegate = delegate;
    this.instances = delegate.instancesV2().orElseThrow();
  }

  /** From now on, bulk answers fail {@code nodeName} with a cloud error. */
  public void failInBulkAnswers(String nodeName) {
    failing.add(nodeName);
  }

  /** The calls so far that asked about {@code nodeName}. */
  public List<Call> callsAbout(String nodeName) {
    return calls.stream().filter(call -> call.nodes().contains(nodeName)).toList();
  }

  @Override
  public String providerName() {
    return delegate.providerName();
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return delegate.loadBalancer();
  }

  @Override
  public Optional<Routes> routes() {
    return delegate.routes();
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return Optional.of(
        new InstancesV2() {
          @Override
          public boolean instanceExists(Node node) throws CloudException {
            record("InstanceExists", List.of(node));
            return instances.instanceExists(node);
          }

          @Override
          public boolean instanceShutdown(Node node) throws CloudException {
            record("InstanceShutdown", List.of(node));
            return instances.instanceShutdown(node);
          }

          @Override
          public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
            record("InstanceMetadata", List.of(node));
            return instances.instanceMetadata(node);
          }

          @Override
          public int maxNodesPerCall() {
            return instances.maxNodesPerCall();
          }

          @Override
          public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
            record("InstancesExist", nodes);
            return perturbed(instances.instancesExist(nodes));
          }

          @Override
          public BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes)
              throws CloudException {
            record("InstancesShutdown", nodes);
            return perturbed(instances.instancesShutdown(nodes));
          }

          @Override
          public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
              throws CloudException {
            record("InstancesMetadata", nodes);
            return perturbed(instances.instancesMetadata(nodes));
          }
        });
  }

  private void record(String method, Collection<Node> nodes) {
    calls.add(new Call(method, nodes.stream().map(InstancesV2::nodeName).toList()));
  }

  private <T> BulkAnswers<T> perturbed(BulkAnswers<T> answers) {
    Map<String, T> values = new HashMap<>(answers.values());
    Map<String, CloudException> errors = new HashMap<>(answers.errors());
    for (String name : failing) {
      if (values.remove(name) != null) {
        errors.put(name, new CloudException("injected: the cloud lost the answer for " + name));
      }
    }
    return new BulkAnswers<>(values, errors);
  }
}
