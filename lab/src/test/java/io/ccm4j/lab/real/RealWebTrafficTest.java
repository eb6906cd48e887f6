package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab's web workload on real nodes: its manifest, and its container's script run here with this
 * machine's busybox (skipped without one): {@code GET /} names the pod, {@code GET /cgi-bin/peer}
 * also the address the request came from, which the pod-to-pod check reads.
 */
class RealWebTrafficTest {

  @TempDir Path dir;

  private static List<HasMetadata> web() {
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      return client
          .load(new ByteArrayInputStream(RealWebTraffic.WEB.getBytes(StandardCharsets.UTF_8)))
          .items();
    }
  }

  @Test
  void theWebManifestIsADeploymentOnThePodNetworkAndALoadBalancerService() {
    List<HasMetadata> objects = web();

    assertThat(objects).hasSize(2);
    Deployment deployment = (Deployment) objects.getFirst();
    assertThat(deployment.getSpec().getTemplate().getSpec().getHostNetwork()).isNull();
    assertThat(((Service) objects.get(1)).getSpec().getType()).isEqualTo("LoadBalancer");
  }

  @Test
  void itsServerNamesThePodAndTheAddressARequestCameFrom() throws Exception {
    Path busybox = Path.of("/bin/busybox");
    assumeTrue(Files.isExecutable(busybox), "no /bin/busybox (Debian's busybox-static)");
    Container httpd =
        ((Deployment) web().getFirst()).getSpec().getTemplate().getSpec().getContainers().get(0);
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    String script =
        httpd
            .getCommand()
            .getLast()
            .replace("/tmp/www", dir.resolve("www").toString())
            .replace(
                "exec httpd -f -p " + RealWebTraffic.HTTP_PORT,
                "exec busybox httpd -f -p [::ffff:127.0.0.1]:" + port);
    ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", script).redirectErrorStream(true);
    builder.environment().put("PATH", "/bin:/usr/bin");
    builder.environment().put("NODE_NAME", "worker-1");
    builder.environment().put("POD_IP", "10.244.3.2");
    Process server = builder.start();
    try {
      String page = "";
      String peer = "";
      for (int i = 0; i < 50 && peer.isEmpty(); i++) {
        Thread.sleep(100);
        page = RealWebTraffic.body(get(port, "/")).orElse("");
        peer = RealWebTraffic.body(get(port, RealWebTraffic.PEER_PATH)).orElse("");
      }

      assertThat(page).isEqualTo("answered by worker-1 from pod IP 10.244.3.2");
      // busybox httpd on a dual-stack socket names IPv4 peers as [::ffff:a.b.c.d]: the page does
      // not
      assertThat(peer).isEqualTo("answered by worker-1 from pod IP 10.244.3.2 to 127.0.0.1");
    } finally {
      server.destroy();
      server.waitFor(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void theBodyFollowsTheFirstEmptyLineWhateverItsLineEnds() {
    assertThat(RealWebTraffic.body("HTTP/1.1 200 OK\r\nA: b\r\n\r\nhello\n")).contains("hello");
    assertThat(RealWebTraffic.body("HTTP/1.1 200 OK\r\nContent-Type: text/plain\n\nhi\n"))
        .contains("hi");
    assertThat(RealWebTraffic.body("HTTP/1.1 404 Not Found\r\n\r\nno")).isEmpty();
    assertThat(RealWebTraffic.body("")).isEmpty();
  }

  private static String get(int port, String path) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + path + " HTTP/1.0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
