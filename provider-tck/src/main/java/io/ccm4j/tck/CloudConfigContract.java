package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.CONFIG_ERRORS_NAME_THE_FIELD;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The factory: a bad {@code --cloud-config} is one line naming the field, never a stack trace. */
public interface CloudConfigContract extends FacetContract {

  /** The field the kit adds to the harness's valid config: no provider knows it. */
  String UNKNOWN_FIELD = "contractKitUnknownField";

  @Test
  @Holds(CONFIG_ERRORS_NAME_THE_FIELD)
  default void configErrorsNameTheField() throws Exception {
    Map<String, String> invalid = new LinkedHashMap<>(session().harness().invalidCloudConfigs());
    String valid = session().harness().cloudConfig().orElse("");
    invalid.put(
        UNKNOWN_FIELD,
        valid + (valid.isEmpty() || valid.endsWith("\n") ? "" : "\n") + UNKNOWN_FIELD + ": 1\n");
    for (Map.Entry<String, String> config : invalid.entrySet()) {
      CloudProvider created;
      try {
        created =
            session()
                .harness()
                .factory()
                .create(session().configFile(Optional.of(config.getValue())));
      } catch (CloudConfigException e) {
        CONFIG_ERRORS_NAME_THE_FIELD.require(
            e.getMessage() != null && e.getMessage().contains(config.getKey()),
            "the error for an invalid \"%s\" does not name it: %s"
                .formatted(config.getKey(), e.getMessage()));
        continue;
      }
      created.close();
      throw CONFIG_ERRORS_NAME_THE_FIELD.broken(
          "the factory accepted a config with an invalid \"%s\":%n%s"
              .formatted(config.getKey(), config.getValue()));
    }
  }
}
