package io.ccm4j.controllers;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.client.protobuf.NodeWrites;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Function;

/**
 * What every controller is built from, handed to it by the manager (upstream's {@code
 * ControllerInitContext}): a controller learns its own name and event recorder here and never reads
 * the {@link Controllers} registry; its own settings record comes beside this, as the second
 * argument of its constructor ({@link ControllerFactory}). Informers come from the shared factory,
 * so controllers watching the same kind share one watch and one cache; the manager starts the
 * factory after every controller has registered its handlers.
 *
 * @param name the controller's canonical name ({@link ControllerDescriptor#name()}): its queue's
 *     and health check's name
 * @param events the recorder for the controller's event source ({@link
 *     ControllerDescriptor#eventSource()})
 * @param contentType the wire format of {@code --kube-api-content-type}, in which the API server
 *     answers the Node writes of {@link #nodeWrites()}
 * @param partClients a client of its own for each part of the controller that upstream runs as a
 *     controller of its own, by the part's name: the identity of {@code client}, a rate limit of
 *     its own ({@link #clientFor})
 */
public record ControllerContext(
    String name,
    KubernetesClient client,
    SharedInformerFactory informers,
    CloudProvider cloud,
    String clusterName,
    MeterRegistry metrics,
    EventRecorder events,
    KubeApiContentType contentType,
    Function<String, KubernetesClient> partClients) {

  /** A context whose parts write with the controller's own client (tests, the lab's runs). */
  public ControllerContext(
      String name,
      KubernetesClient client,
      SharedInformerFactory informers,
      CloudProvider cloud,
      String clusterName,
      MeterRegistry metrics,
      EventRecorder events,
      KubeApiContentType contentType) {
    this(name, client, informers, cloud, clusterName, metrics, events, contentType, part -> client);
  }

  /**
   * The client of a part of this controller that upstream runs as a controller of its own (the
   * node-lifecycle controller's taint eviction, upstream's {@code taint-eviction-controller}), as
   * upstream's {@code ControllerContext.NewClient} gives each a clientset, and so a rate limit, of
   * its own on the same credentials: the part's requests never queue in front of the rest's.
   */
  public KubernetesClient clientFor(String part) {
    return partClients.apply(part);
  }

  /** The controller's writes of Nodes, through its client. */
  public NodeWrites nodeWrites() {
    return new NodeWrites(client, contentType);
  }
}
