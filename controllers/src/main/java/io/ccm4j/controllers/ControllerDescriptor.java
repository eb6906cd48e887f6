package io.ccm4j.controllers;

import java.util.List;
import java.util.Objects;

/**
 * One controller as the manager knows it: an entry of upstream's {@code
 * DefaultInitFuncConstructors} ({@code app/controllermanager.go}) with its names ({@code names/}).
 * Every place that needs a fact about a controller reads it here: {@code --controllers} and its
 * help, the manager, {@code --use-service-account-credentials}, the {@code
 * running_managed_controllers} metric, and the test that checks the chart's RBAC.
 *
 * @param name the canonical name (§1), also the controller's {@code /healthz/<name>} check
 * @param alias the short name {@code --controllers} accepts and {@code running_managed_controllers}
 *     reports (A7, A8)
 * @param clientName upstream's {@code ClientName}: the ServiceAccount in {@code kube-system} the
 *     controller writes as with {@code --use-service-account-credentials}, which the API server's
 *     bootstrap policy binds to {@code system:controller:<clientName>}
 * @param eventSource the {@code source.component} of the events it records
 * @param enabledByDefault whether {@code *} enables it
 * @param access what it reads and writes through the API (its share of the RBAC rules)
 * @param factory builds it
 */
public record ControllerDescriptor(
    String name,
    String alias,
    String clientName,
    String eventSource,
    boolean enabledByDefault,
    List<Access> access,
    ControllerFactory factory) {

  public ControllerDescriptor {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(alias, "alias");
    Objects.requireNonNull(clientName, "clientName");
    Objects.requireNonNull(eventSource, "eventSource");
    access = List.copyOf(access);
    Objects.requireNonNull(factory, "factory");
  }

  /**
   * Verbs on one resource, as an RBAC rule spells them.
   *
   * @param apiGroup {@code ""} for the core group
   * @param resource a resource or subresource ({@code nodes/status})
   */
  public record Access(String apiGroup, String resource, List<String> verbs) {

    public Access {
      verbs = List.copyOf(verbs);
    }

    /** Verbs on a resource of the core group. */
    public static Access core(String resource, String... verbs) {
      return new Access("", resource, List.of(verbs));
    }
  }
}
