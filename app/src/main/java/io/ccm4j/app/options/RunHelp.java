package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.controllers.Controllers;
import java.util.ListResourceBundle;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Help texts of {@code ccm4j run} computed from code rather than spelled in an annotation (picocli
 * looks an option's description up here by its {@code descriptionKey}): the {@code --controllers}
 * names and the {@code --use-service-account-credentials} accounts come from {@link
 * Controllers#ALL}, so a new controller appears in the help by itself.
 */
public final class RunHelp extends ListResourceBundle {

  @Override
  protected Object[][] getContents() {
    return new Object[][] {
      {
        "controllers",
        "Controllers to enable: '*' enables all, 'name' enables one, '-name' disables one; the"
            + " first entry that names a controller decides. Names (aliases): "
            + Controllers.namesForHelp()
            + ". "
            + Controllers.NODE_IPAM.name()
            + " runs only with --allocate-node-cidrs. A provider's own, run by that provider"
            + " and enabled by '*' too: "
            + String.join(", ", new TreeSet<>(Controllers.PROVIDER_CONTROLLERS.keySet()))
            + ". Default: ${DEFAULT-VALUE}."
      },
      {
        "use-service-account-credentials",
        "Each controller talks to the API server as upstream's ServiceAccount for it in "
            + WellKnownNamespaces.KUBE_SYSTEM
            + " ("
            + Controllers.ALL.stream()
                .map(ControllerDescriptor::clientName)
                .distinct()
                .collect(Collectors.joining(", "))
            + "; created when missing), with tokens from the TokenRequest API."
            + " Default: ${DEFAULT-VALUE}."
      },
    };
  }
}
