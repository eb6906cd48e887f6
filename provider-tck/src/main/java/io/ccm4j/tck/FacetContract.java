package io.ccm4j.tck;

/**
 * The checks of one facet, as default {@code @Test} methods of an interface that {@link
 * ProviderContract} implements: a new facet of the SPI gets its checks as one more such interface
 * (and its {@link Contract} entries), without touching the others.
 */
public interface FacetContract {

  /** The running check's harness and providers. */
  ContractSession session();
}
