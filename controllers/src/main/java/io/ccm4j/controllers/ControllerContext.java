package io.ccm4j.controllers;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Function;

/**
 * What a controller is built from. Informers come from the shared factory, so controllers watching
 * the same kind share one watch and one cache; the manager starts the factory after every
 * controller has registered its handlers.
 *
 * @param eventRecorders an event recorder for a component name ({@code cloud-node-controller}, ...)
 */
public record ControllerContext(
    KubernetesClient client,
    SharedInformerFactory informers,
    CloudProvider cloud,
    String clusterName,
    MeterRegistry metrics,
    Function<String, EventRecorder> eventRecorders,
    ControllerSettings settings) {}
