package io.ccm4j.tck;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider contract test kit: extend it in your provider's tests and give it a {@link
 * ProviderHarness}.
 *
 * <pre>
 * class AcmeProviderContractTest extends ProviderContract {
 *   &#64;Override
 *   protected ProviderHarness harness() {
 *     return new AcmeHarness();
 *   }
 * }
 * </pre>
 *
 * <p>Every check names the {@link Contract} it holds ({@link Holds}); its failure message names the
 * contract, its behaviour id, what was seen and why ccm4j's controllers need it. A facet the
 * provider does not offer, and a state its harness cannot make, skip the checks that need them. A
 * facet that throws {@link UnsupportedOperationException} (a stub) fails each of its checks as "not
 * implemented".
 *
 * <p>The checks are grouped by facet, one interface each ({@link InstancesContract}, {@link
 * BulkCallsContract}, {@link LoadBalancerContract}, {@link RoutesContract}, {@link ZonesContract},
 * {@link CloudConfigContract}, {@link LifecycleContract}); a facet added to the SPI later is one
 * more interface here.
 */
@ExtendWith(ContractFailures.class)
public abstract class ProviderContract
    implements InstancesContract,
        BulkCallsContract,
        LoadBalancerContract,
        RoutesContract,
        ZonesContract,
        CloudConfigContract,
        LifecycleContract {

  @TempDir Path contractDirectory;

  private ContractSession session;

  /** A new harness for one check; the kit closes it after the check. */
  protected abstract ProviderHarness harness() throws Exception;

  @BeforeEach
  final void openContractSession() throws Exception {
    session = new ContractSession(harness(), contractDirectory);
  }

  @AfterEach
  final void closeContractSession() throws Exception {
    if (session != null) {
      session.close();
    }
  }

  @Override
  public final ContractSession session() {
    return session;
  }
}
