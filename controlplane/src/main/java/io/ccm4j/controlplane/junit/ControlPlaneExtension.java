package io.ccm4j.controlplane.junit;

import io.ccm4j.controlplane.LocalControlPlane;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Starts a {@link LocalControlPlane} once per test run and shares it (start-up dominates a test's
 * time), and resolves {@link LocalControlPlane} and {@link KubernetesClient} parameters. Clients
 * are closed after their test class; the shared control plane when the run ends, a class's own
 * ({@link WithControlPlane#shared()} false) after the class.
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
    Optional<WithControlPlane> settings =
        context
            .getTestClass()
            .flatMap(type -> AnnotationSupport.findAnnotation(type, WithControlPlane.class));
    boolean scheduler = settings.map(WithControlPlane::scheduler).orElse(false);
    boolean shared = settings.map(WithControlPlane::shared).orElse(true);
    // A class's store also answers with its ancestors' values: its own control plane needs a key
    // of its own.
    return (shared ? context.getRoot() : classContext(context))
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            (shared ? "" : "own-") + "control-plane-scheduler-" + scheduler,
            key ->
                new SharedControlPlane(
                    LocalControlPlane.builder().withScheduler(scheduler).start()),
            SharedControlPlane.class)
        .controlPlane();
  }

  /** The context of the test class (a test's, or a parameterized test's invocation's, ancestor). */
  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().orElseThrow();
    }
    return classContext;
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
