package io.ccm4j.lab.real;

import io.ccm4j.lab.LabResult;
import io.ccm4j.lab.Timeline;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The traffic check on real nodes: a busybox httpd Deployment on the pod network of the lab's CNI
 * on the two workers, each with a host port (the CNI's portmap plugin), and one request to each
 * worker's address from the cluster network.
 */
final class RealWebTraffic {

  /** The HTTP server's port in the pods and on the workers (a host port). */
  static final int HTTP_PORT = 8080;

  static final String WEB =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        namespace: default
      spec:
        replicas: 2
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            # on the pod network (the lab's CNI), reached on its node's address through a host port
            automountServiceAccountToken: false
            terminationGracePeriodSeconds: 1
            affinity:
              podAntiAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                - topologyKey: kubernetes.io/hostname
                  labelSelector:
                    matchLabels: {app: web}
            containers:
            - name: httpd
              image: %s
              imagePullPolicy: Never
              ports:
              - {containerPort: %d, hostPort: %d}
              env:
              - name: NODE_NAME
                valueFrom:
                  fieldRef: {fieldPath: spec.nodeName}
              - name: POD_IP
                valueFrom:
                  fieldRef: {fieldPath: status.podIP}
              command:
              - /bin/sh
              - -c
              - mkdir -p /tmp/www && echo "answered by $NODE_NAME from pod IP $POD_IP" > /tmp/www/index.html && exec httpd -f -p %d -h /tmp/www
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web
        namespace: default
      spec:
        type: LoadBalancer
        # each node sends to its own pod: no route between the nodes' pod networks is needed
        externalTrafficPolicy: Local
        selector: {app: web}
        ports:
        - {port: 80, targetPort: %d}
      """
          .formatted(RealNodeFiles.BUSYBOX_IMAGE, HTTP_PORT, HTTP_PORT, HTTP_PORT, HTTP_PORT);

  private RealWebTraffic() {}

  /**
   * The web Deployment on the workers, and one request to each of them from the cluster network.
   */
  static LabResult.Traffic serveFromWorkers(
      KubernetesClient admin, RealCluster cluster, Timeline timeline)
      throws InterruptedException, IOException {
    for (HasMetadata object :
        admin.load(new ByteArrayInputStream(WEB.getBytes(StandardCharsets.UTF_8))).items()) {
      admin.resource(object).createOr(existing -> existing.update());
    }
    timeline.record(
        "web",
        "busybox httpd Deployment (pod network, host port %d, 2 replicas) applied"
            .formatted(HTTP_PORT));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    List<Pod> running = List.of();
    while (System.nanoTime() < deadline) {
      running =
          admin.pods().inNamespace("default").withLabel("app", "web").list().getItems().stream()
              .filter(p -> "Running".equals(p.getStatus().getPhase()))
              .toList();
      if (running.size() == 2) {
        break;
      }
      Thread.sleep(200);
    }
    if (running.isEmpty()) {
      return new LabResult.Traffic(false, "no busybox httpd pod ran on a real worker within 60 s");
    }
    List<String> answers = new ArrayList<>();
    for (Pod pod : running) {
      String ip = pod.getStatus().getHostIP();
      timeline.record(
          pod.getSpec().getNodeName(),
          "web pod %s running, pod IP %s"
              .formatted(pod.getMetadata().getName(), pod.getStatus().getPodIP()));
      String response = cluster.httpGet(ip, HTTP_PORT);
      Optional<String> body = body(response);
      if (body.isEmpty()) {
        return new LabResult.Traffic(
            false,
            "GET http://%s:%d/ from the cluster network: %s"
                .formatted(ip, HTTP_PORT, response.isBlank() ? "no answer" : response.strip()));
      }
      answers.add("%s:%d %s".formatted(ip, HTTP_PORT, body.get()));
      timeline.record(pod.getSpec().getNodeName(), "httpd " + body.get());
    }
    String summary =
        "real pods on the pod network answered GET / on the workers' addresses (host port,"
            + " the CNI's portmap): "
            + String.join(", ", answers);
    // kube-proxy: the Service's node port on each worker (externalTrafficPolicy Local: its own pod)
    Service service = admin.services().inNamespace("default").withName("web").get();
    int nodePort = service.getSpec().getPorts().getFirst().getNodePort();
    List<String> viaNodePort = new ArrayList<>();
    for (Pod pod : running) {
      String ip = pod.getStatus().getHostIP();
      String last = "";
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      Optional<String> body = Optional.empty();
      while (body.isEmpty() && System.nanoTime() < until) {
        last = cluster.httpGet(ip, nodePort);
        body = body(last);
        if (body.isEmpty()) {
          Thread.sleep(500); // kube-proxy has not yet programmed the node port
        }
      }
      if (body.isEmpty()) {
        return new LabResult.Traffic(
            false,
            summary
                + "; but kube-proxy's node port did not answer: GET http://%s:%d/ from the cluster network: %s"
                    .formatted(ip, nodePort, last.isBlank() ? "no answer" : last.strip()));
      }
      viaNodePort.add("%s:%d %s".formatted(ip, nodePort, body.get()));
      timeline.record(
          pod.getSpec().getNodeName(),
          "kube-proxy's node port %d: %s".formatted(nodePort, body.get()));
    }
    return new LabResult.Traffic(
        true,
        summary
            + "; through kube-proxy, the Service's node port: "
            + String.join(", ", viaNodePort));
  }

  /** The body of a 200 response, if it is one with a body. */
  static Optional<String> body(String response) {
    String body =
        response.contains("\r\n\r\n")
            ? response.substring(response.indexOf("\r\n\r\n") + 4).strip()
            : "";
    if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ") || body.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(body);
  }
}
