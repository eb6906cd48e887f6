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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The traffic check on real nodes: a busybox httpd Deployment on the pod network of the lab's CNI
 * on the two workers, each with a host port (the CNI's portmap plugin), and one request to each
 * worker's address from the cluster network.
 */
final class RealWebTraffic {

  /** The HTTP server's port in the pods and on the workers (a host port). */
  static final int HTTP_PORT = 8080;

  /**
   * The port of the web Service, on its load balancer: above 1024, since ccm4j's image does not run
   * as root.
   */
  static final int SERVICE_PORT = 8000;

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
              # GET / answers with the pod; GET /cgi-bin/peer also names the address the request came from
              command:
              - /bin/sh
              - -c
              - |
                mkdir -p /tmp/www/cgi-bin
                echo "answered by $NODE_NAME from pod IP $POD_IP" > /tmp/www/index.html
                echo '#!/bin/sh' > /tmp/www/cgi-bin/peer
                echo 'from=${REMOTE_ADDR#"[::ffff:"}; from=${from%%"]"}' >> /tmp/www/cgi-bin/peer
                echo 'echo Content-Type: text/plain; echo; echo "answered by $NODE_NAME from pod IP $POD_IP to $from"' >> /tmp/www/cgi-bin/peer
                chmod +x /tmp/www/cgi-bin/peer
                exec httpd -f -p %d -h /tmp/www
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web
        namespace: default
      spec:
        type: LoadBalancer
        # each node sends to its own pod: no route between the nodes' pod networks is needed (the
        # routes are the CCM's, if it creates them: pod to pod across nodes is checked on its own)
        externalTrafficPolicy: Local
        selector: {app: web}
        ports:
        - {port: %d, targetPort: %d}
      """
          .formatted(
              RealNodeFiles.BUSYBOX_IMAGE,
              HTTP_PORT,
              HTTP_PORT,
              HTTP_PORT,
              SERVICE_PORT,
              HTTP_PORT);

  private RealWebTraffic() {}

  /**
   * The web Deployment on the workers, and one request to each of them from the cluster network.
   */
  static LabResult.Traffic serveFromWorkers(
      KubernetesClient admin,
      RealCluster cluster,
      Timeline timeline,
      List<String> ccmNodes,
      Optional<RealCloudRouter> routes,
      Map<String, Object> shown)
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
    summary += "; through kube-proxy, the Service's node port: " + String.join(", ", viaNodePort);
    if (routes.isPresent()) {
      PodToPod podToPod = podToPod(cluster, timeline, running, routes.get(), shown);
      if (podToPod.failure().isPresent()) {
        return new LabResult.Traffic(false, summary + "; but " + podToPod.failure().get());
      }
      summary +=
          "; pod to pod across nodes through the CCM's routes: "
              + String.join(", ", podToPod.answers());
    }
    if (ccmNodes.isEmpty()) {
      return new LabResult.Traffic(
          true,
          summary
              + "; the load balancer was not checked: its listener runs in the lab's process, off"
              + " the nodes' network (build ccm4j's image to run the CCM, and its load balancers,"
              + " on the nodes)");
    }
    return throughLoadBalancer(admin, cluster, timeline, ccmNodes, summary, shown);
  }

  /**
   * A request through the {@code local} cloud's load balancer, which the CCM in ccm4j's image
   * provisioned on the loopback of the node its leader runs on: the lab's cloud network fronts it
   * on that node's address (a DNAT in the node's network namespace, as a cloud's public address
   * leads to its load balancer), and the request goes from the cluster network to that address,
   * then through the listener to a worker's node port, kube-proxy and the pod.
   */
  private static LabResult.Traffic throughLoadBalancer(
      KubernetesClient admin,
      RealCluster cluster,
      Timeline timeline,
      List<String> ccmNodes,
      String summary,
      Map<String, Object> shown)
      throws InterruptedException, IOException {
    String address = null;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (address == null && System.nanoTime() < deadline) {
      Service service = admin.services().inNamespace("default").withName("web").get();
      var ingress =
          service.getStatus() == null || service.getStatus().getLoadBalancer() == null
              ? null
              : service.getStatus().getLoadBalancer().getIngress();
      if (ingress != null && !ingress.isEmpty()) {
        address = ingress.getFirst().getIp();
      } else {
        Thread.sleep(500);
      }
    }
    if (address == null) {
      return new LabResult.Traffic(
          false, summary + "; but the CCM gave the web Service no load balancer within 60 s");
    }
    timeline.record("web", "load balancer %s:%d provisioned".formatted(address, SERVICE_PORT));
    String node = null;
    for (String candidate : ccmNodes) {
      String listening =
          cluster.inNode(
              candidate, List.of("ss", "-Hltn", "src", "%s:%d".formatted(address, SERVICE_PORT)));
      if (!listening.isBlank()) {
        node = candidate;
        break;
      }
    }
    if (node == null) {
      return new LabResult.Traffic(
          false,
          summary
              + "; but no node of a CCM pod (%s) listens on the load balancer's %s:%d"
                  .formatted(String.join(", ", ccmNodes), address, SERVICE_PORT));
    }
    String nodeIp =
        admin.nodes().withName(node).get().getStatus().getAddresses().stream()
            .filter(a -> "InternalIP".equals(a.getType()))
            .map(a -> a.getAddress())
            .findFirst()
            .orElseThrow();
    cluster.inNode(node, List.of("sysctl", "-qw", "net.ipv4.conf.all.route_localnet=1"));
    cluster.inNode(
        node,
        List.of(
            "iptables",
            "-t",
            "nat",
            "-I",
            "PREROUTING",
            "-d",
            nodeIp,
            "-p",
            "tcp",
            "--dport",
            Integer.toString(SERVICE_PORT),
            "-j",
            "DNAT",
            "--to-destination",
            "%s:%d".formatted(address, SERVICE_PORT)));
    timeline.record(
        node,
        "the lab's cloud network fronts the load balancer %s:%d at %s:%d"
            .formatted(address, SERVICE_PORT, nodeIp, SERVICE_PORT));
    String last = "";
    Optional<String> body = Optional.empty();
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (body.isEmpty() && System.nanoTime() < until) {
      last = cluster.httpGet(nodeIp, SERVICE_PORT);
      body = body(last);
      if (body.isEmpty()) {
        Thread.sleep(500); // the load balancer has no healthy node yet
      }
    }
    Map<String, Object> lb = new LinkedHashMap<>();
    lb.put("address", "%s:%d".formatted(address, SERVICE_PORT));
    lb.put("node", node);
    lb.put("frontedAt", "%s:%d".formatted(nodeIp, SERVICE_PORT));
    lb.put("answered", body.orElse(null));
    shown.put("loadBalancer", lb);
    if (body.isEmpty()) {
      return new LabResult.Traffic(
          false,
          summary
              + "; but the load balancer %s:%d on %s did not answer (GET http://%s:%d/ from the"
                  .formatted(address, SERVICE_PORT, node, nodeIp, SERVICE_PORT)
              + " cluster network): "
              + (last.isBlank() ? "no answer" : last.strip()));
    }
    timeline.record("web", "load balancer: " + body.get());
    return new LabResult.Traffic(
        true,
        summary
            + "; through the local cloud's load balancer %s:%d on %s (fronted at %s:%d): %s"
                .formatted(address, SERVICE_PORT, node, nodeIp, SERVICE_PORT, body.get()));
  }

  /**
   * A request from each web pod to the other's pod IP, on the other node: from one pod network to
   * another only through the cluster network's routes, which the lab programs from the CCM's route
   * table. Each answer names the address the request came from, which must be the asking pod's own
   * (the nodes masquerade nothing inside the cluster CIDR).
   */
  private static PodToPod podToPod(
      RealCluster cluster,
      Timeline timeline,
      List<Pod> running,
      RealCloudRouter routes,
      Map<String, Object> shown)
      throws InterruptedException, IOException {
    List<Map<String, Object>> checks = new ArrayList<>();
    shown.put("podToPod", checks);
    List<String> answers = new ArrayList<>();
    for (Pod from : running) {
      for (Pod to : running) {
        if (from.getSpec().getNodeName().equals(to.getSpec().getNodeName())) {
          continue;
        }
        String fromIp = from.getStatus().getPodIP();
        String toIp = to.getStatus().getPodIP();
        String last = "";
        Optional<String> body = Optional.empty();
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (body.isEmpty() && System.nanoTime() < until) {
          last = cluster.httpGetFromPod(fromIp, toIp, HTTP_PORT, PEER_PATH);
          body = body(last);
          if (body.isEmpty()) {
            Thread.sleep(500); // the CCM has not yet created the route
          }
        }
        Map<String, Object> check = new LinkedHashMap<>();
        check.put("from", "%s (%s)".formatted(fromIp, from.getSpec().getNodeName()));
        check.put("to", "%s:%d (%s)".formatted(toIp, HTTP_PORT, to.getSpec().getNodeName()));
        check.put("answered", body.orElse(null));
        check.put(
            "routes",
            routes.programmed().stream()
                .map(r -> "%s via %s (%s)".formatted(r.destination(), r.via(), r.targetNode()))
                .toList());
        checks.add(check);
        if (body.isEmpty()) {
          return new PodToPod(
              answers,
              Optional.of(
                  "pod %s on %s did not reach pod %s on %s (cluster network routes: %s): %s"
                      .formatted(
                          fromIp,
                          from.getSpec().getNodeName(),
                          toIp,
                          to.getSpec().getNodeName(),
                          routes.programmed().isEmpty() ? "none" : check.get("routes"),
                          last.isBlank() ? "no answer" : last.strip())));
        }
        timeline.record(
            from.getSpec().getNodeName(),
            "pod %s -> pod %s:%d on %s: %s"
                .formatted(fromIp, toIp, HTTP_PORT, to.getSpec().getNodeName(), body.get()));
        answers.add("%s -> %s:%d %s".formatted(fromIp, toIp, HTTP_PORT, body.get()));
      }
    }
    return new PodToPod(answers, Optional.empty());
  }

  /** The answers of the pod-to-pod requests, and what failed, if one did. */
  private record PodToPod(List<String> answers, Optional<String> failure) {}

  /** The web pods' page that names the address a request came from (a CGI of busybox httpd). */
  static final String PEER_PATH = "/cgi-bin/peer";

  /** The body of a 200 response, if it is one with a body. */
  static Optional<String> body(String response) {
    // after the first empty line (a CGI's headers may end their lines with LF alone)
    String[] parts = response.split("\r?\n\r?\n", 2);
    String body = parts.length == 2 ? parts[1].strip() : "";
    if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ") || body.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(body);
  }
}
