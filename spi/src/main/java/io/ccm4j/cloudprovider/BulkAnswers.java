package io.ccm4j.cloudprovider;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The answers of one bulk call, key by key (a node's name, or a Service's {@code namespace/name}):
 * each key asked is either answered ({@link #values()}), failed ({@link #errors()}) or missing from
 * both, which means "not answered this time". The caller treats a missing key exactly like a failed
 * one: it asks again later, and never takes it for a negative answer (an instance that is gone).
 * Keys that were not asked are ignored. There is no order: answers are looked up by key.
 *
 * @param values the answers, each with the meaning of the per-item method's return value
 * @param errors the failures, each what the per-item method would have thrown
 */
public record BulkAnswers<T>(Map<String, T> values, Map<String, CloudException> errors) {

  public BulkAnswers {
    values = Map.copyOf(Objects.requireNonNull(values, "values"));
    errors = Map.copyOf(Objects.requireNonNull(errors, "errors"));
    for (String key : errors.keySet()) {
      if (values.containsKey(key)) {
        throw new IllegalArgumentException(key + " is both answered and failed");
      }
    }
  }

  /** One per-item call. */
  @FunctionalInterface
  public interface PerItem<I, T> {
    T ask(I item) throws CloudException;
  }

  /**
   * Asks item by item, in the collection's order: what the bulk methods' defaults do. A {@link
   * CloudException} (or a runtime exception, wrapped) fails that key only; the other keys are still
   * asked.
   */
  public static <I, T> BulkAnswers<T> oneByOne(
      Collection<? extends I> items,
      java.util.function.Function<? super I, String> key,
      PerItem<? super I, ? extends T> call) {
    Map<String, T> values = new HashMap<>();
    Map<String, CloudException> errors = new HashMap<>();
    for (I item : items) {
      String k = key.apply(item);
      try {
        values.put(k, call.ask(item));
        errors.remove(k);
      } catch (CloudException e) {
        values.remove(k);
        errors.put(k, e);
      } catch (RuntimeException e) {
        values.remove(k);
        errors.put(k, new CloudException(k + ": " + e, e));
      }
    }
    return new BulkAnswers<>(values, errors);
  }

  /** Every key of {@code keys} failed with {@code error}: a bulk call that failed as a whole. */
  public static <T> BulkAnswers<T> allFailed(Collection<String> keys, CloudException error) {
    Map<String, CloudException> errors = new HashMap<>();
    keys.forEach(k -> errors.put(k, error));
    return new BulkAnswers<>(Map.of(), errors);
  }

  /** The answer for {@code key}, if it was answered. */
  public Optional<T> value(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /**
   * Why {@code key} has no answer: its error, or, when it is missing from the answers, a {@link
   * CloudException} saying so. Empty when it was answered.
   */
  public Optional<CloudException> failure(String key) {
    if (values.containsKey(key)) {
      return Optional.empty();
    }
    CloudException error = errors.get(key);
    return Optional.of(
        error != null ? error : new CloudException(key + ": not answered by the bulk call"));
  }
}
