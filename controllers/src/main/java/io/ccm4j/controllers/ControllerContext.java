package io.ccm4j.controllers;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.client.protobuf.NodeWrites;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.micrometer.core.instrument.MeterRegistry;

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
 */
public record ControllerContext(
    String name,
    KubernetesClient client,
    SharedInformerFactory informers,
    CloudProvider cloud,
    String clusterName,
    MeterRegistry metrics,
    EventRecorder events,
    KubeApiContentType contentType) {

  /** The controller's writes of Nodes, through its client. */
  public NodeWrites nodeWrites() {
    return new NodeWrites(client, contentType);
  }
}
