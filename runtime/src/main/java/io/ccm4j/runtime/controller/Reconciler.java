package io.ccm4j.runtime.controller;

/**
 * A level-triggered sync of one key: read the current state from the informer cache, compare it
 * with the desired state and write the difference. Throwing requeues the key with backoff; a {@link
 * io.ccm4j.cloudprovider.RetryAfterException} anywhere in the cause chain requeues it after that
 * fixed delay instead.
 */
@FunctionalInterface
public interface Reconciler<K> {

  void reconcile(K key) throws Exception;
}
