package io.ccm4j.cloudprovider.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * IP address literals read as Go's {@code net.ParseIP} reads them (since Go 1.17): a dotted quad of
 * decimal octets without leading zeros, or an IPv6 address. Never a DNS lookup, which {@link
 * InetAddress#getByName} would do for anything that is not a literal.
 */
public final class IpAddresses {

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");

  private IpAddresses() {}

  /**
   * The address {@code text} spells.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code text}
   */
  public static InetAddress parse(String text) {
    String value = text == null ? "" : text;
    if (value.contains(":")) {
      if (IPV6.matcher(value).matches()) {
        for (String field : value.split(":", -1)) {
          if (field.length() > 4 && !field.contains(".")) {
            // InetAddress reads 00001 as 1; Go's parser refuses it.
            throw new IllegalArgumentException(
                "\"%s\" is not a valid IP address: field \"%s\" has more than 4 hex digits"
                    .formatted(value, field));
          }
        }
        Optional<InetAddress> parsed = literal(value);
        if (parsed.isPresent()) {
          return parsed.get();
        }
      }
    } else if (IPV4.matcher(value).matches()) {
      for (String octet : value.split("\\.")) {
        if (octet.length() > 1 && octet.startsWith("0")) {
          throw new IllegalArgumentException(
              "\"%s\" is not a valid IP address: octet \"%s\" has a leading zero (ambiguous: octal"
                      .formatted(value, octet)
                  + " or decimal?), which Go's net.ParseIP refuses since Go 1.17");
        }
        if (Integer.parseInt(octet) > 255) {
          throw new IllegalArgumentException(
              "\"%s\" is not a valid IP address: octet %s is above 255".formatted(value, octet));
        }
      }
      Optional<InetAddress> parsed = literal(value);
      if (parsed.isPresent()) {
        return parsed.get();
      }
    }
    throw new IllegalArgumentException("\"" + value + "\" is not a valid IP address");
  }

  /** The address {@code text} spells, or empty when it is none. */
  public static Optional<InetAddress> tryParse(String text) {
    try {
      return Optional.of(parse(text));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code text} is an IP address literal. */
  public static boolean isIp(String text) {
    return tryParse(text).isPresent();
  }

  /** Only called with a checked literal, so no lookup happens. */
  private static Optional<InetAddress> literal(String value) {
    try {
      return Optional.of(InetAddress.getByName(value));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }
}
