package io.ccm4j.cloudprovider.net;

import java.util.regex.Pattern;

/** Kubernetes' names of DNS shape (RFC 1123), as its API server checks them. */
public final class DnsNames {

  /** A label: a namespace's name, a host name. */
  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  /** A subdomain: most objects' names (a Lease's). */
  private static final Pattern SUBDOMAIN =
      Pattern.compile(
          "(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private DnsNames() {}

  /** Lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63. */
  public static boolean isLabel(String name) {
    return name != null && LABEL.matcher(name).matches();
  }

  /** Labels joined by '.', at most 253 in all. */
  public static boolean isSubdomain(String name) {
    return name != null && SUBDOMAIN.matcher(name).matches();
  }
}
