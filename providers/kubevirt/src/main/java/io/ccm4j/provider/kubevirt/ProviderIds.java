package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code kubevirt://<VMI name>} (K21). */
final class ProviderIds {

  static final String SCHEME = KubeVirtCloud.PROVIDER_NAME + "://";

  /**
   * K21 with one deliberate difference: dots are accepted, because they are legal in VMI names
   * (upstream's pattern rejects them, a Quirk).
   */
  private static final Pattern PROVIDER_ID = Pattern.compile("^kubevirt://([0-9A-Za-z_.-]+)$");

  private ProviderIds() {}

  static String of(String vmiName) {
    return SCHEME + vmiName;
  }

  /** The VMI name of a providerID; an error for anything else, including an empty value. */
  static String instanceId(String providerId) throws CloudException {
    Matcher matcher = PROVIDER_ID.matcher(providerId == null ? "" : providerId);
    if (!matcher.matches()) {
      throw new CloudException(
          "providerID \"%s\" does not match kubevirt://<instance-id>"
              .formatted(providerId == null ? "" : providerId));
    }
    return matcher.group(1);
  }
}
