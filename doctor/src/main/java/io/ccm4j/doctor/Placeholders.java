package io.ccm4j.doctor;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The placeholders a vendor's example leaves to fill in, found where they keep the CCM from running
 * as meant: its image, its command line and its environment values. Kubernetes expands only {@code
 * $(VAR)} there, so {@code ${IMG}}, {@code <REGION>} and {@code {{ .Values.image }}} reach the
 * container as written.
 */
final class Placeholders {

  /** {@code <KUBERNETES_MASTER_ENDPOINT>}, {@code <your cluster name>}. */
  private static final Pattern ANGLE = Pattern.compile("<[A-Za-z][A-Za-z0-9_. -]*>");

  /** {@code ${IMG}}, {@code ${image-version}}: envsubst's, or a name to fill in by hand. */
  private static final Pattern DOLLAR_BRACE = Pattern.compile("\\$\\{[^}]+}");

  /** {@code {{ .Values.image }}}: a Helm (or Go) template not rendered. */
  private static final Pattern TEMPLATE = Pattern.compile("\\{\\{.*?}}");

  private Placeholders() {}

  /**
   * Each placeholder of the container, with where it stands: {@code image
   * registry/ccm:${image-version}}, {@code --master=<ENDPOINT>}, {@code env REGION=<REGION>}.
   *
   * @param words the CCM's command line ({@link CcmCommandLine#words})
   * @param fromScript the words come from a shell script, which expands {@code ${NAME}} itself
   */
  static List<String> of(Container container, List<String> words, boolean fromScript) {
    List<String> found = new ArrayList<>();
    if (holdsOne(container.getImage(), false)) {
      found.add("image " + container.getImage());
    }
    for (String word : words) {
      if (holdsOne(word, fromScript)) {
        found.add(word);
      }
    }
    if (container.getEnv() != null) {
      for (EnvVar env : container.getEnv()) {
        if (env != null && holdsOne(env.getValue(), false)) {
          found.add("env " + env.getName() + "=" + env.getValue());
        }
      }
    }
    return found;
  }

  private static boolean holdsOne(String text, boolean shellExpands) {
    if (text == null) {
      return false;
    }
    return ANGLE.matcher(text).find()
        || TEMPLATE.matcher(text).find()
        || (!shellExpands && DOLLAR_BRACE.matcher(text).find());
  }
}
