package io.ccm4j.controllers.node;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Instance metadata for the nodes being initialised, coalesced into bulk calls (the burst of a
 * scale-up): the worker that needs a node's metadata asks the cloud for it together with every
 * other node still waiting for initialisation in the cache, up to the provider's {@code
 * maxNodesPerCall()}, and keeps their answers for their own syncs; a worker whose node is in a call
 * in flight waits for that call. A size cap and no batching window: the cache already tells which
 * nodes wait, so a lone node's initialisation waits for nothing but its own call. An answer is used
 * once, only while it is younger than {@link #MAX_AGE}, and only for the Node object it was asked
 * for (same UID and provider ID: a Node deleted and registered again under its name may be another
 * instance's); an error in it fails that node's sync only (retried with backoff, N6). A provider
 * without bulk calls is asked node by node, as upstream does.
 */
final class InitialMetadataLookups {

  /** How long a prefetched answer may wait for its node's sync. */
  static final Duration MAX_AGE = Duration.ofSeconds(30);

  private record Lookup(CompletableFuture<BulkAnswers<Optional<InstanceMetadata>>> call, long at) {}

  /** A call asked about a node: the Node object it asked with, by UID and provider ID. */
  private record Prefetched(Lookup lookup, String uid, String providerId) {

    boolean isFor(Node node) {
      return Objects.equals(uid, node.getMetadata().getUid())
          && Objects.equals(providerId, InitialMetadataLookups.providerId(node));
    }
  }

  private final InstancesV2 instances;
  private final Supplier<List<Node>> waiting;
  private final LongSupplier nanoTime;
  private final Map<String, Prefetched> prefetched = new HashMap<>();

  /**
   * Nodes whose answer was used lately, by when: not prefetched again while their initialisation
   * has not reached the cache yet (they still ask for themselves when their sync comes again).
   */
  private final Map<String, Long> used = new HashMap<>();

  /**
   * @param waiting the nodes that still wait for initialisation (in the informer cache)
   */
  InitialMetadataLookups(
      InstancesV2 instances, Supplier<List<Node>> waiting, LongSupplier nanoTime) {
    this.instances = instances;
    this.waiting = waiting;
    this.nanoTime = nanoTime;
  }

  /** {@link InstancesV2#instanceMetadata} for {@code node}, maybe answered by a bulk call. */
  Optional<InstanceMetadata> metadata(Node node) throws CloudException {
    int max = instances.maxNodesPerCall();
    if (max <= 1) {
      return instances.instanceMetadata(node);
    }
    String name = InstancesV2.nodeName(node);
    List<Node> batch = null;
    CompletableFuture<BulkAnswers<Optional<InstanceMetadata>>> call;
    synchronized (prefetched) {
      long now = nanoTime.getAsLong();
      prefetched.values().removeIf(entry -> now - entry.lookup().at() > MAX_AGE.toNanos());
      used.values().removeIf(at -> now - at > MAX_AGE.toNanos());
      used.put(name, now);
      Prefetched entry = prefetched.remove(name);
      if (entry != null && entry.isFor(node)) {
        call = entry.lookup().call();
      } else {
        call = new CompletableFuture<>();
        batch = batch(node, max);
        Lookup started = new Lookup(call, now);
        batch.stream()
            .skip(1)
            .forEach(
                other ->
                    prefetched.put(
                        InstancesV2.nodeName(other),
                        new Prefetched(started, other.getMetadata().getUid(), providerId(other))));
      }
    }
    if (batch != null) {
      CloudException failure = null;
      try {
        call.complete(instances.instancesMetadata(batch));
      } catch (CloudException e) {
        failure = e;
      } catch (RuntimeException e) {
        failure = new CloudException(e.toString(), e);
      } finally {
        // Whatever ended the call, the workers waiting for it get an answer.
        if (!call.isDone()) {
          call.complete(
              BulkAnswers.allFailed(
                  names(batch),
                  failure != null
                      ? failure
                      : new CloudException("the bulk call for node " + name + " did not end")));
        }
      }
    }
    BulkAnswers<Optional<InstanceMetadata>> answers;
    try {
      answers = call.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CloudException("interrupted while waiting for the metadata of node " + name);
    } catch (ExecutionException e) {
      throw new CloudException(e.getCause().toString(), e.getCause()); // completed normally only
    }
    Optional<CloudException> failure = answers.failure(name);
    if (failure.isPresent()) {
      throw failure.get();
    }
    return answers.value(name).orElseThrow();
  }

  /** {@code node} first, then other waiting nodes no call covers yet, up to {@code max}. */
  private List<Node> batch(Node node, int max) {
    String name = InstancesV2.nodeName(node);
    List<Node> batch = new ArrayList<>(List.of(node));
    for (Node other : waiting.get()) {
      if (batch.size() >= max) {
        break;
      }
      String otherName = InstancesV2.nodeName(other);
      if (!otherName.equals(name)
          && !prefetched.containsKey(otherName)
          && !used.containsKey(otherName)) {
        batch.add(other);
      }
    }
    return batch;
  }

  private static String providerId(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getProviderID();
  }

  private static List<String> names(List<Node> nodes) {
    return nodes.stream().map(InstancesV2::nodeName).toList();
  }

  /** Answers kept for nodes whose sync has not come yet (for tests). */
  int prefetchedCount() {
    synchronized (prefetched) {
      return prefetched.size();
    }
  }
}
