package io.ccm4j.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The repository's documents resolve: every behaviour id cited in main code (every module's and
 * provider's {@code src/main/java}) is a heading under {@code docs/behaviour/}, and every relative
 * link in README.md, ARCHITECTURE.md and {@code docs/} names a file that exists (and, with a {@code
 * #fragment}, a heading in it). It lives in the SPI module, which every build reaches first, and
 * reads the repository from {@code ..}; it depends on no module's code.
 */
class DocsTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path BEHAVIOUR = ROOT.resolve("docs").resolve("behaviour");

  /**
   * A rule id: one of the letters the specs number their rules with (N, L, S, R, H, A, F: the CCM
   * spec; K: the KubeVirt spec) and a number, standing alone: not inside a word or a path ({@code
   * K8s}, {@code C1}, {@code UTF-8}, {@code v1.S3} are no ids). A step after a dot ({@code N11.3})
   * belongs to the rule.
   */
  static final Pattern RULE_ID =
      Pattern.compile(
          "(?<![\\w.\\-/#])([NLSRHAF][1-9][0-9]?|K[1-9][0-9]{0,2})(?:\\.[0-9]+)?(?![\\w\\-])");

  /**
   * A section id, {@code §} and dotted numbers, optionally qualified by the spec it is in: {@code
   * node-lifecycle spec §4.5}, {@code kubevirt §3}, {@code ccm spec §8.8}. Unqualified, it is in
   * the citing file's home spec ({@link #homeSpec}).
   */
  static final Pattern SECTION_ID =
      Pattern.compile(
          "(?:\\b(ccm|node-lifecycle|kubevirt)(?:-behaviour|-provider)?(?: spec)?\\s+)?"
              + "§\\s?([0-9]+(?:\\.[0-9]+)*)");

  private static final Map<String, String> SPEC_FILES =
      Map.of("ccm", "ccm.md", "node-lifecycle", "node-lifecycle.md", "kubevirt", "kubevirt.md");

  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HEADING_ID =
      Pattern.compile("^(§[0-9]+(?:\\.[0-9]+)*|[A-Z][0-9]+)(?=\\s|$)");
  private static final Pattern LINK =
      Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

  /** What a citation in one file refers to: a spec's file under docs/behaviour and a heading id. */
  record Citation(String specFile, String id) {}

  /** The home spec of a bare section id: the spec the citing file's package implements. */
  static String homeSpec(String relativePath) {
    String path = relativePath.replace('\\', '/');
    if (path.startsWith("controllers/src/main/java/io/ccm4j/controllers/nodelifecycle/")) {
      return "node-lifecycle";
    }
    if (path.startsWith("providers/kubevirt/")) {
      return "kubevirt";
    }
    return "ccm";
  }

  /**
   * The behaviour ids a source file cites; a rule id may be in any spec file (its letter is
   * unique).
   */
  static List<Citation> citations(String relativePath, String source) {
    List<Citation> found = new ArrayList<>();
    Matcher rule = RULE_ID.matcher(source);
    while (rule.find()) {
      found.add(new Citation("*", rule.group(1)));
    }
    Matcher section = SECTION_ID.matcher(source);
    while (section.find()) {
      String spec = section.group(1) == null ? homeSpec(relativePath) : section.group(1);
      found.add(new Citation(SPEC_FILES.get(spec), "§" + section.group(2)));
    }
    return found;
  }

  @ParameterizedTest(name = "{0} cites {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "app/src/main/java/X.java|'checks the provided node IP (N7) and writes it (N9.5)'|*:N7 *:N9",
        "app/src/main/java/X.java|'K8s, C1-compiled, UTF-8, S3a, v1.S3, N0, KN7 and X1 are not ids'|",
        "app/src/main/java/X.java|'see K110, L1–L8 and F18'|*:K110 *:L1 *:L8 *:F18",
        "app/src/main/java/X.java|'the storm (§8.8)'|ccm.md:§8.8",
        "app/src/main/java/X.java|'(node-lifecycle spec §4.5)'|node-lifecycle.md:§4.5",
        "controllers/src/main/java/io/ccm4j/controllers/nodelifecycle/X.java|'§3.3: zones'|node-lifecycle.md:§3.3",
        "controllers/src/main/java/io/ccm4j/controllers/nodelifecycle/X.java|'(ccm spec §6.1)'|ccm.md:§6.1",
        "providers/kubevirt/src/main/java/X.java|'InstancesV2 (§2)'|kubevirt.md:§2",
      })
  void whatCountsAsACitation(String path, String source, String expected) {
    List<String> cited =
        citations(path, source).stream().map(c -> c.specFile() + ":" + c.id()).toList();
    assertThat(String.join(" ", cited)).isEqualTo(expected == null ? "" : expected);
  }

  @Test
  void everyBehaviourIdCitedInMainCodeIsAHeadingUnderDocsBehaviour() throws IOException {
    Map<String, Set<String>> headings = new HashMap<>();
    Map<String, String> ruleFiles = new HashMap<>();
    List<String> duplicates = new ArrayList<>();
    for (String file : SPEC_FILES.values()) {
      Set<String> ids = new HashSet<>();
      for (String heading : headings(BEHAVIOUR.resolve(file))) {
        Matcher id = HEADING_ID.matcher(heading);
        if (id.find()) {
          ids.add(id.group(1));
          if (!id.group(1).startsWith("§") && ruleFiles.put(id.group(1), file) != null) {
            duplicates.add(id.group(1));
          }
        }
      }
      headings.put(file, ids);
    }
    assertThat(duplicates).as("rule ids that are headings in more than one spec file").isEmpty();

    Map<String, Set<String>> unresolved = new TreeMap<>();
    int cited = 0;
    for (Path source : mainSources()) {
      String relative = ROOT.relativize(source).toString().replace('\\', '/');
      for (Citation citation : citations(relative, Files.readString(source))) {
        cited++;
        boolean resolves =
            citation.specFile().equals("*")
                ? ruleFiles.containsKey(citation.id())
                : headings.get(citation.specFile()).contains(citation.id());
        if (!resolves) {
          unresolved
              .computeIfAbsent(relative, k -> new TreeSet<>())
              .add(
                  citation.specFile().equals("*")
                      ? citation.id()
                      : citation.id() + " (in docs/behaviour/" + citation.specFile() + ")");
        }
      }
    }
    assertThat(cited).as("behaviour ids cited in main code").isGreaterThan(200);
    assertThat(unresolved)
        .as(
            "ids cited in main code with no heading under docs/behaviour/ (add one, or qualify a §)")
        .isEmpty();
  }

  @Test
  void everyRelativeLinkInTheDocumentsResolves() throws IOException {
    List<Path> documents =
        new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("ARCHITECTURE.md")));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    List<String> broken = new ArrayList<>();
    for (Path document : documents) {
      for (String target : links(document)) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto: …
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
        String where = ROOT.relativize(document) + ": " + target;
        if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
          broken.add(where + " (no such file)");
        } else if (fragment != null
            && resolved.toString().endsWith(".md")
            && !anchors(resolved).contains(fragment)) {
          broken.add(where + " (no such heading)");
        }
      }
    }
    assertThat(documents).hasSizeGreaterThan(5);
    assertThat(broken).as("relative links that lead nowhere").isEmpty();
  }

  private static List<Path> mainSources() throws IOException {
    try (Stream<Path> files = Files.walk(ROOT)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> ROOT.relativize(p).toString().replace('\\', '/').contains("/src/main/java/"))
          .filter(p -> !ROOT.relativize(p).toString().replace('\\', '/').matches("(.*/)?target/.*"))
          .filter(p -> !ROOT.relativize(p).startsWith(".git"))
          .sorted()
          .toList();
    }
  }

  /** A markdown file's headings, outside fenced code blocks. */
  private static List<String> headings(Path markdown) {
    List<String> found = new ArrayList<>();
    for (String line : prose(markdown)) {
      Matcher heading = HEADING.matcher(line);
      if (heading.matches()) {
        found.add(heading.group(1));
      }
    }
    return found;
  }

  /** The anchors GitHub gives a markdown file's headings. */
  static Set<String> anchors(Path markdown) {
    Set<String> found = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String heading : headings(markdown)) {
      String slug = slug(heading);
      int n = seen.merge(slug, 1, Integer::sum);
      found.add(n == 1 ? slug : slug + "-" + (n - 1));
    }
    return found;
  }

  /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
  }

  private static List<String> links(Path markdown) {
    List<String> found = new ArrayList<>();
    for (String line : prose(markdown)) {
      Matcher link = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
      while (link.find()) {
        found.add(link.group(1));
      }
    }
    return found;
  }

  /** The lines of a markdown file outside fenced code blocks. */
  private static List<String> prose(Path markdown) {
    List<String> lines = new ArrayList<>();
    boolean fenced = false;
    try {
      for (String line : Files.readAllLines(markdown)) {
        if (line.stripLeading().startsWith("```")) {
          fenced = !fenced;
        } else if (!fenced) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }
}
