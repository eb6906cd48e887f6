package io.ccm4j.cloudprovider;

/**
 * What the manager tells a provider when it initialises it.
 *
 * @param clusterName the value of {@code --cluster-name}, the prefix of the cloud resources this
 *     cluster owns
 */
public record ProviderContext(String clusterName) {}
