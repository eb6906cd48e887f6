package io.ccm4j.controllers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.ccm4j.controllers.ControllerDescriptor.Access;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The RBAC of {@code deploy/} and of the Helm chart against {@link Controllers#ALL}: every
 * controller may do what its descriptor says it does. ({@code HelmChartTest} shows that the chart's
 * defaults render exactly {@code deploy/}; {@code DeployRbacIT} runs the manager under it.)
 */
class ControllerRbacTest {

  private static final Path DEPLOY_RBAC = Path.of("..", "deploy", "rbac.yaml");
  private static final Path CHART_TEMPLATES = Path.of("..", "charts", "ccm4j", "templates");

  /** What the manager itself does beside its controllers: the serving port's reviews. */
  private static final List<Access> MANAGER =
      List.of(
          new Access("authentication.k8s.io", "tokenreviews", List.of("create")),
          new Access("authorization.k8s.io", "subjectaccessreviews", List.of("create")));

  static final List<ControllerDescriptor> CONTROLLERS = Controllers.ALL;

  @ParameterizedTest(name = "{0}")
  @FieldSource("CONTROLLERS")
  void theChartGrantsWhatEachControllerDoes(ControllerDescriptor controller) throws IOException {
    List<Map<String, Object>> rules = clusterRoleRules(chartObjects());

    for (Access access : controller.access()) {
      assertThat(grants(rules, access))
          .as("the chart grants %s its %s", controller.name(), access)
          .isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @FieldSource("CONTROLLERS")
  void deployGrantsWhatEachControllerEnabledByDefaultDoes(ControllerDescriptor controller)
      throws IOException {
    List<Map<String, Object>> rules = clusterRoleRules(read(Files.readString(DEPLOY_RBAC)));

    for (Access access : controller.access()) {
      assertThat(grants(rules, access))
          .as("deploy/ grants %s its %s", controller.name(), access)
          .isEqualTo(controller.enabledByDefault() || grantedByDefault(access));
    }
  }

  @Test
  void deployGrantsNothingBeyondTheManagerAndItsDefaultControllers() throws IOException {
    List<Access> needed = new ArrayList<>(MANAGER);
    Controllers.ALL.stream()
        .filter(ControllerDescriptor::enabledByDefault)
        .forEach(controller -> needed.addAll(controller.access()));

    for (Map<String, Object> rule : clusterRoleRules(read(Files.readString(DEPLOY_RBAC)))) {
      for (String group : strings(rule, "apiGroups")) {
        for (String resource : strings(rule, "resources")) {
          for (String verb : strings(rule, "verbs")) {
            assertThat(needed)
                .as("who needs %s on %s/%s", verb, group, resource)
                .anySatisfy(
                    access -> {
                      assertThat(access.apiGroup()).isEqualTo(group);
                      assertThat(access.resource()).isEqualTo(resource);
                      assertThat(access.verbs()).contains(verb);
                    });
          }
        }
      }
    }
  }

  /** The chart grants a controller off by default its rules when {@code controllers} names it. */
  @ParameterizedTest(name = "{0}")
  @FieldSource("CONTROLLERS")
  void theChartKnowsEachControllerOffByDefaultByNameAndAlias(ControllerDescriptor controller)
      throws IOException {
    String helpers = Files.readString(CHART_TEMPLATES.resolve("_helpers.tpl"));

    assertThat(helpers.contains("\"%s\" \"%s\"".formatted(controller.alias(), controller.name())))
        .as("_helpers.tpl selects %s by alias and name", controller.name())
        .isEqualTo(!controller.enabledByDefault());
  }

  /**
   * With {@code useServiceAccountCredentials} the manager reads or creates each controller's
   * account in kube-system and requests its tokens; the chart names those accounts.
   */
  @Test
  void theChartLetsTheManagerUseEachControllersAccount() throws IOException {
    String template = Files.readString(CHART_TEMPLATES.resolve("rbac.yaml"));
    List<Map<String, Object>> objects = chartObjects();

    List<Map<String, Object>> accountRules =
        objects.stream()
            .filter(o -> "Role".equals(o.get("kind")))
            .filter(o -> name(o).endsWith(":controller-accounts"))
            .flatMap(o -> rules(o).stream())
            .toList();
    assertThat(grants(accountRules, new Access("", "serviceaccounts", List.of("get", "create"))))
        .isTrue();
    assertThat(grants(accountRules, new Access("", "serviceaccounts/token", List.of("create"))))
        .isTrue();
    for (ControllerDescriptor controller : Controllers.ALL) {
      assertThat(template).contains(controller.clientName());
    }
  }

  /** deploy/ grants the events every controller records even with those off by default off. */
  private static boolean grantedByDefault(Access access) {
    return Controllers.ALL.stream()
        .filter(ControllerDescriptor::enabledByDefault)
        .flatMap(controller -> controller.access().stream())
        .anyMatch(
            granted ->
                granted.apiGroup().equals(access.apiGroup())
                    && granted.resource().equals(access.resource())
                    && granted.verbs().containsAll(access.verbs()));
  }

  private static boolean grants(List<Map<String, Object>> rules, Access access) {
    return access.verbs().stream()
        .allMatch(
            verb ->
                rules.stream()
                    .anyMatch(
                        rule ->
                            strings(rule, "apiGroups").contains(access.apiGroup())
                                && strings(rule, "resources").contains(access.resource())
                                && strings(rule, "verbs").contains(verb)));
  }

  /**
   * The chart's rbac.yaml with every branch taken: template comments and lines holding only an
   * action dropped, the remaining actions replaced by a placeholder.
   */
  private static List<Map<String, Object>> chartObjects() throws IOException {
    String template = Files.readString(CHART_TEMPLATES.resolve("rbac.yaml"));
    String withoutComments =
        Pattern.compile("\\{\\{-? ?/\\*.*?\\*/ ?-?}}", Pattern.DOTALL)
            .matcher(template)
            .replaceAll("");
    String yaml =
        withoutComments
            .lines()
            .filter(line -> !line.strip().startsWith("{{"))
            .map(line -> line.replaceAll("\\{\\{.*?}}", "placeholder"))
            .reduce("", (a, b) -> a + b + "\n");
    return read(yaml);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> read(String yaml) throws IOException {
    ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
    List<Map<String, Object>> objects = new ArrayList<>();
    try (var documents = mapper.readerFor(Map.class).readValues(yaml)) {
      while (documents.hasNext()) {
        Object document = documents.next();
        if (document != null) {
          objects.add((Map<String, Object>) document);
        }
      }
    }
    return objects;
  }

  private static List<Map<String, Object>> clusterRoleRules(List<Map<String, Object>> objects) {
    List<Map<String, Object>> roles =
        objects.stream().filter(o -> "ClusterRole".equals(o.get("kind"))).toList();
    assertThat(roles).hasSize(1);
    return rules(roles.get(0));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> rules(Map<String, Object> role) {
    return (List<Map<String, Object>>) role.get("rules");
  }

  @SuppressWarnings("unchecked")
  private static String name(Map<String, Object> object) {
    return String.valueOf(((Map<String, Object>) object.get("metadata")).get("name"));
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Map<String, Object> rule, String field) {
    return ((List<Object>) rule.get(field)).stream().map(String::valueOf).toList();
  }
}
