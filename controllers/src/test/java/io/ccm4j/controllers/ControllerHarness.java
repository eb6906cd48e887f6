package io.ccm4j.controllers;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.client.protobuf.ProtobufInformerFactory;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.events.KubernetesEventRecorder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Runs controllers against a real API server as the manager does, without leader election. */
public final class ControllerHarness implements AutoCloseable {

  private final KubernetesClient client;
  private final SharedInformerFactory informers;
  private final CloudProvider cloud;
  private final ControllerSettings settings;
  private final Map<String, KubernetesEventRecorder> recorders = new ConcurrentHashMap<>();
  private final List<Controller> controllers = new ArrayList<>();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private String clusterName = "kubernetes";
  private Function<String, KubernetesClient> partClients;
  private KubernetesClient controllerClient;

  public ControllerHarness(
      KubernetesClient client, CloudProvider cloud, ControllerSettings settings) {
    this.client = client;
    // As the manager's: the Node informer in protobuf (the default of --kube-api-content-type).
    this.informers = ProtobufInformerFactory.of(client, KubeApiContentType.DEFAULT);
    this.cloud = cloud;
    this.settings = settings;
  }

  /** The manager's {@code --cluster-name} (upstream's default, "kubernetes", unless set here). */
  public ControllerHarness withClusterName(String name) {
    this.clusterName = name;
    return this;
  }

  /**
   * The clients of the controllers' parts ({@link ControllerContext#clientFor}), as the manager's
   * {@code ManagerClients} gives each a rate limit of its own; without it, the controller's client.
   */
  public ControllerHarness withPartClients(Function<String, KubernetesClient> clients) {
    this.partClients = clients;
    return this;
  }

  /**
   * The controllers' own client, as the manager's {@code ManagerClients} puts it behind a fence;
   * the informers and the events stay on the harness's client, unfenced as the manager's.
   */
  public ControllerHarness withControllerClient(KubernetesClient controllerClient) {
    this.controllerClient = controllerClient;
    return this;
  }

  /** What the manager hands the controller {@code descriptor} describes, beside its settings. */
  public ControllerContext context(ControllerDescriptor descriptor) {
    KubernetesClient writes = controllerClient != null ? controllerClient : client;
    return new ControllerContext(
        descriptor.name(),
        writes,
        informers,
        cloud,
        clusterName,
        metrics,
        recorders.computeIfAbsent(
            descriptor.eventSource(),
            c -> new KubernetesEventRecorder(client, c, KubeApiContentType.DEFAULT)),
        KubeApiContentType.DEFAULT, // the Node writes and events in protobuf, as the manager's
        partClients != null ? partClients : part -> writes);
  }

  /**
   * Builds the controllers, starts the informers, waits for their caches, starts the controllers.
   */
  public ControllerHarness start(ControllerDescriptor... descriptors) throws Exception {
    for (ControllerDescriptor descriptor : descriptors) {
      controllers.add(descriptor.factory().create(context(descriptor), settings));
    }
    informers.startAllRegisteredInformers().get(60, TimeUnit.SECONDS);
    controllers.forEach(Controller::start);
    return this;
  }

  public SimpleMeterRegistry metrics() {
    return metrics;
  }

  /** The started controllers, in the order given to {@link #start}. */
  public List<Controller> controllers() {
    return List.copyOf(controllers);
  }

  /** Events about the named object, in any namespace. */
  public List<Event> eventsFor(String objectName) {
    return client.v1().events().inAnyNamespace().list().getItems().stream()
        .filter(event -> objectName.equals(event.getInvolvedObject().getName()))
        .toList();
  }

  @Override
  public void close() throws Exception {
    for (Controller controller : controllers) {
      controller.close();
    }
    informers.stopAllRegisteredInformers();
    for (KubernetesEventRecorder recorder : recorders.values()) {
      recorder.close();
    }
  }
}
