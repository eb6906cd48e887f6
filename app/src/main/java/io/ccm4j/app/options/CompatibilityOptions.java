package io.ccm4j.app.options;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Upstream flags that common CCM manifests pass and that change nothing in ccm4j, as they change
 * nothing in upstream's manager in the same situation: accepted, so such a manifest runs (and the
 * lab can run it), and checked, so a value that would mean something ccm4j does not do is an error.
 */
public final class CompatibilityOptions {

  @Option(
      names = "--webhook-secure-port",
      paramLabel = "<port>",
      defaultValue = "10260",
      description =
          "Accepted for compatibility: ccm4j has no webhooks, so no webhook server starts (as"
              + " upstream's without its CloudControllerManagerWebhook gate).")
  int webhookSecurePort;

  @Option(
      names = "--webhooks",
      paramLabel = "<name>",
      description = "Must be empty: ccm4j implements no webhooks.")
  List<String> webhooks = List.of();

  @Option(
      names = "--authentication-skip-lookup",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description =
          "Accepted for compatibility: ccm4j never looks up the client CA (it authenticates bearer"
              + " tokens only).")
  boolean authenticationSkipLookup;

  @Option(
      names = "--node-sync-period",
      paramLabel = "<duration>",
      defaultValue = "0s",
      converter = GoDurationConverter.class,
      description = "Deprecated and without effect, as upstream's.")
  Duration nodeSyncPeriod;

  @Option(
      names = "--cidr-allocator-type",
      paramLabel = "<type>",
      defaultValue = "RangeAllocator",
      description =
          "Node IPAM's allocator: only RangeAllocator (the default) exists. Default:"
              + " ${DEFAULT-VALUE}.")
  String cidrAllocatorType;

  public Optional<String> validate() {
    if (webhookSecurePort < 0 || webhookSecurePort > 65535) {
      return Optional.of(
          "--webhook-secure-port must be between 0 and 65535, got " + webhookSecurePort);
    }
    List<String> named;
    try {
      named =
          GoCsv.fields("--webhooks", webhooks).stream()
              .map(String::trim)
              .filter(w -> !w.isEmpty())
              .toList();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    if (!named.isEmpty()) {
      return Optional.of("--webhooks: ccm4j implements no webhooks, got " + named);
    }
    if (!cidrAllocatorType.equals("RangeAllocator")) {
      return Optional.of(
          "--cidr-allocator-type: only RangeAllocator is supported, got " + cidrAllocatorType);
    }
    return Optional.empty();
  }
}
