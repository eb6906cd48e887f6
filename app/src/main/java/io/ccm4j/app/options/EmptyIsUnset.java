package io.ccm4j.app.options;

import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;

/**
 * A string flag given an empty value ({@code --cloud-config=}, as a chart renders an unset value)
 * is at its default, unset, as upstream's string flags are: "Empty string for no configuration
 * file" (cloud-provider {@code options/cloudprovider.go}), and client-go's {@code
 * BuildConfigFromFlags} takes an empty {@code --kubeconfig} and {@code --master} for none; so do
 * k8s.io/apiserver's serving options for their files ({@code --client-ca-file}, {@code
 * --tls-cert-file}, {@code --authentication-kubeconfig}, ...: {@code len(file) == 0} is none). A
 * path read as is would be the working directory.
 */
public final class EmptyIsUnset {

  private EmptyIsUnset() {}

  /** A file flag: null (unset) for an empty value. */
  public static final class File implements ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
      return value.isEmpty() ? null : Path.of(value);
    }
  }

  /** A text flag: null (unset) for an empty value. */
  public static final class Text implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      return value.isEmpty() ? null : value;
    }
  }
}
