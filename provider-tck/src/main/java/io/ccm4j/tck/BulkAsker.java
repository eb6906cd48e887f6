package io.ccm4j.tck;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.NotImplementedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Asks a bulk method as ccm4j's controllers do: in calls of at most the provider's size, none
 * twice, and again later for what a call left unanswered (an error, a key missing from the answer,
 * or the whole call failing), for at most {@link #ROUNDS} rounds.
 */
final class BulkAsker {

  /** How often the kit asks a key that was not answered. */
  static final int ROUNDS = 5;

  private BulkAsker() {}

  /** One bulk call. */
  @FunctionalInterface
  interface Call<I, T> {
    BulkAnswers<T> ask(List<I> batch) throws CloudException;
  }

  /**
   * What the rounds gave: every answer (the first one per key) and, for each key never answered,
   * why (its last error, "not answered", or the failure of its whole call).
   */
  record Outcome<T>(Map<String, T> values, Map<String, CloudException> failures) {

    Optional<T> value(String key) {
      return Optional.ofNullable(values.get(key));
    }
  }

  /**
   * Asks {@code items} in calls of at most {@code max} (below 1 is 1), in {@code rounds} rounds;
   * {@code answered} says whether a value counts as an answer (a value that does not is asked
   * again).
   */
  static <I, T> Outcome<T> ask(
      List<I> items,
      Function<I, String> key,
      int max,
      int rounds,
      java.util.function.Predicate<T> answered,
      Call<I, T> call)
      throws NotImplementedException {
    Map<String, T> values = new HashMap<>();
    Map<String, CloudException> failures = new HashMap<>();
    List<I> pending = new ArrayList<>(items);
    int size = Math.max(1, max);
    for (int round = 0; round < rounds && !pending.isEmpty(); round++) {
      List<I> next = new ArrayList<>();
      for (int from = 0; from < pending.size(); from += size) {
        List<I> batch = List.copyOf(pending.subList(from, Math.min(pending.size(), from + size)));
        BulkAnswers<T> answers;
        try {
          answers = call.ask(batch);
        } catch (CloudException e) {
          rethrowStub(e);
          batch.forEach(item -> failures.put(key.apply(item), e));
          next.addAll(batch);
          continue;
        }
        for (CloudException error : answers.errors().values()) {
          rethrowStub(error);
        }
        for (I item : batch) {
          String k = key.apply(item);
          Optional<T> value = answers.value(k);
          if (value.isPresent()) {
            values.putIfAbsent(k, value.get());
          }
          if (value.isPresent() && answered.test(value.get())) {
            failures.remove(k);
          } else {
            failures.put(
                k,
                answers
                    .failure(k)
                    .orElseGet(() -> new CloudException(k + ": answered " + value.get())));
            next.add(item);
          }
        }
      }
      pending = next;
    }
    return new Outcome<>(values, failures);
  }

  /**
   * A stub's {@link UnsupportedOperationException} (or a {@link NotImplementedException}) that the
   * SPI's per-node defaults turned into a node's error, thrown as it is: the check then fails as
   * "not implemented", naming the stub, as the per-node checks do.
   */
  private static void rethrowStub(CloudException error) throws NotImplementedException {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof UnsupportedOperationException stub) {
        throw stub;
      }
      if (cause instanceof NotImplementedException stub) {
        throw stub;
      }
    }
  }

  /** {@link #ask} where every value is an answer. */
  static <I, T> Outcome<T> ask(
      List<I> items, Function<I, String> key, int max, int rounds, Call<I, T> call)
      throws NotImplementedException {
    return ask(items, key, max, rounds, value -> true, call);
  }
}
