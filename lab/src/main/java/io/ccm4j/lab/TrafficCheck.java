package io.ccm4j.lab;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bootstrapped cluster's first request from outside: a Service of type LoadBalancer is created,
 * the CCM's service controller provisions a load balancer for it in the lab's {@code local} cloud
 * (a real listener on a loopback address), and an HTTP request to the address the CCM wrote into
 * the Service's status must be answered by a node's kube-proxy, through the load balancer.
 */
final class TrafficCheck {

  static final String NAMESPACE = "default";
  static final String SERVICE = "lab-web";
  private static final String SUBJECT = "traffic";
  private static final Pattern ANSWER = Pattern.compile("node=(\\S+) service=(\\S+)");

  /** What lies between the ingress address and the node that answers, for the summary. */
  interface Route {

    /** The lab's own {@code local} load balancer, straight to the nodes' kube-proxies. */
    Route LOAD_BALANCER = node -> "the load balancer";

    /** Called before each request. */
    default void beforeRequest() {}

    /** The way the last request took to {@code answeringNode}, in words. */
    String via(String answeringNode);
  }

  private final KubernetesClient admin;
  private final Timeline timeline;
  private final Duration budget;
  private final Route route;

  TrafficCheck(KubernetesClient admin, Timeline timeline, Duration budget, Route route) {
    this.admin = admin;
    this.timeline = timeline;
    this.budget = budget;
    this.route = route;
  }

  LabResult.Traffic run() throws InterruptedException {
    long deadline = System.nanoTime() + budget.toNanos();
    admin
        .services()
        .inNamespace(NAMESPACE)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName(SERVICE)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withSelector(java.util.Map.of("app", SERVICE))
                .addNewPort()
                .withName("http")
                .withProtocol("TCP")
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .createOr(existing -> existing.update());
    timeline.record(
        SUBJECT, "Service %s/%s of type LoadBalancer created".formatted(NAMESPACE, SERVICE));
    Optional<String> ip = Optional.empty();
    while (ip.isEmpty() && System.nanoTime() < deadline) {
      ip = ingressIp(admin.services().inNamespace(NAMESPACE).withName(SERVICE).get());
      if (ip.isEmpty()) {
        Thread.sleep(200);
      }
    }
    if (ip.isEmpty()) {
      return failed(
          "the CCM provisioned no load balancer for Service %s/%s in %d s"
              .formatted(NAMESPACE, SERVICE, budget.toSeconds()));
    }
    String url = "http://" + ip.get() + "/";
    timeline.record(SUBJECT, "load balancer %s provisioned by the CCM".formatted(ip.get()));
    String last = "no answer";
    try (HttpClient http =
        HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .connectTimeout(Duration.ofSeconds(1))
            .build()) {
      while (System.nanoTime() < deadline) {
        try {
          route.beforeRequest();
          HttpResponse<String> response =
              http.send(
                  HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                  HttpResponse.BodyHandlers.ofString());
          Matcher answer = ANSWER.matcher(response.body());
          if (response.statusCode() == 200 && answer.find()) {
            String via = route.via(answer.group(1));
            String summary =
                "GET %s was answered by node %s (its kube-proxy, for Service %s) through %s"
                    .formatted(url, answer.group(1), answer.group(2), via);
            timeline.record(
                SUBJECT,
                "answered by node "
                    + answer.group(1)
                    + (route == Route.LOAD_BALANCER ? "" : ", through " + via));
            return new LabResult.Traffic(true, summary);
          }
          last = "HTTP %d: %s".formatted(response.statusCode(), response.body().strip());
        } catch (IOException e) {
          last =
              e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        }
        Thread.sleep(200);
      }
    }
    return failed(
        "GET %s got no answer from a node in %d s (last: %s)"
            .formatted(url, budget.toSeconds(), last));
  }

  private LabResult.Traffic failed(String summary) {
    timeline.record(SUBJECT, "no answer");
    return new LabResult.Traffic(false, summary);
  }

  private static Optional<String> ingressIp(Service service) {
    if (service == null
        || service.getStatus() == null
        || service.getStatus().getLoadBalancer() == null) {
      return Optional.empty();
    }
    List<LoadBalancerIngress> ingress = service.getStatus().getLoadBalancer().getIngress();
    return ingress == null
        ? Optional.empty()
        : ingress.stream()
            .map(LoadBalancerIngress::getIp)
            .filter(ip -> ip != null && !ip.isBlank())
            .findFirst();
  }
}
