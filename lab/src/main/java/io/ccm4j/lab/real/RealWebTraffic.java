package io.ccm4j.lab.real;

import io.ccm4j.lab.LabResult;
import io.ccm4j.lab.Timeline;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The traffic check on real nodes: a busybox httpd Deployment (host network) on the two workers,
 * and one request to each of them from the cluster network.
 */
final class RealWebTraffic {

  /** The HTTP server's port on the workers (host network). */
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
            hostNetwork: true
            automountServiceAccountToken: false
            terminationGracePeriodSeconds: 1
            # no CNI on the lab's real nodes yet: they stay NotReady
            tolerations:
            - {key: node.kubernetes.io/not-ready, operator: Exists}
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
              command:
              - /bin/sh
              - -c
              - mkdir -p /tmp/www && echo "answered by $(hostname)" > /tmp/www/index.html && exec httpd -f -p %d -h /tmp/www
      """
          .formatted(RealNodeFiles.BUSYBOX_IMAGE, HTTP_PORT);

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
    timeline.record("web", "busybox httpd Deployment (host network, 2 replicas) applied");
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
      String ip = pod.getStatus().getPodIP();
      timeline.record(
          pod.getSpec().getNodeName(), "web pod %s running".formatted(pod.getMetadata().getName()));
      String response = cluster.httpGet(ip, HTTP_PORT);
      String body =
          response.contains("\r\n\r\n")
              ? response.substring(response.indexOf("\r\n\r\n") + 4).strip()
              : "";
      if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ") || body.isEmpty()) {
        return new LabResult.Traffic(
            false,
            "GET http://%s:%d/ from the cluster network: %s"
                .formatted(ip, HTTP_PORT, response.isBlank() ? "no answer" : response.strip()));
      }
      answers.add("%s:%d %s".formatted(ip, HTTP_PORT, body));
      timeline.record(pod.getSpec().getNodeName(), "httpd " + body);
    }
    return new LabResult.Traffic(
        true,
        "real pods answered GET / on the workers' addresses (host network; no load balancer or"
            + " kube-proxy on real nodes yet): "
            + String.join(", ", answers));
  }
}
