package io.ccm4j.controlplane.junit;

import io.ccm4j.controlplane.LocalControlPlane;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Starts a {@link LocalControlPlane} once per test run and shares it (start-up dominates a test's
 * time), and resolves {@link LocalControlPlane} and {@link KubernetesClient} parameters. Clients
 * are closed after their test class; the control plane when the run ends.
 */
public final class ControlPlaneExtension implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ControlPlaneExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == LocalControlPlane.class || type == KubernetesClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    LocalControlPlane controlPlane = controlPlane(context);
    if (parameter.getParameter().getType() == LocalControlPlane.class) {
      return controlPlane;
    }
    ExtensionContext classContext =
        context.getTestClass().isPresent() && context.getTestMethod().isEmpty()
            ? context
            : context.getParent().orElse(context);
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            "client", key -> new ClosingClient(controlPlane.newClient()), ClosingClient.class)
        .client();
  }

  private static LocalControlPlane controlPlane(ExtensionContext context) {
    boolean scheduler =
        context
            .getTestClass()
            .flatMap(type -> AnnotationSupport.findAnnotation(type, WithControlPlane.class))
            .map(WithControlPlane::scheduler)
            .orElse(false);
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            "control-plane-scheduler-" + scheduler,
            key ->
                new SharedControlPlane(
                    LocalControlPlane.builder().withScheduler(scheduler).start()),
            SharedControlPlane.class)
        .controlPlane();
  }

  private record SharedControlPlane(LocalControlPlane controlPlane) implements AutoCloseable {
    @Override
    public void close() {
      controlPlane.close();
    }
  }

  private record ClosingClient(KubernetesClient client) implements AutoCloseable {
    @Override
    public void close() {
      client.close();
    }
  }
}
