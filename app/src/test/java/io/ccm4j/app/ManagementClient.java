package io.ccm4j.app;

import io.ccm4j.runtime.serving.LocalManagerHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a manager's HTTPS endpoint, trusting its self-signed certificate. */
final class ManagementClient {

  private final HttpClient http;
  private final String base;

  ManagementClient(String host, int port) {
    this.base = "https://" + host + ":" + port;
    this.http = LocalManagerHttp.client();
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** With {@code Authorization: Bearer <token>}. */
  HttpResponse<String> get(String path, String token) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The value of {@code leader_election_master_status} for the lease, or empty if unreachable. */
  Optional<Boolean> isLeader(String leaseName) {
    try {
      HttpResponse<String> metrics = get("/metrics");
      Matcher matcher =
          Pattern.compile(
                  "^leader_election_master_status\\{name=\""
                      + Pattern.quote(leaseName)
                      + "\"\\} (\\S+)$",
                  Pattern.MULTILINE)
              .matcher(metrics.body());
      if (!matcher.find()) {
        return Optional.empty();
      }
      return Optional.of(Double.parseDouble(matcher.group(1)) == 1.0);
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
