package io.ccm4j.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads and rewrites a cloud-controller-manager's flags in a container's command line as the
 * upstream manager's flag parser (pflag) reads them: {@code --flag=value} and {@code --flag value},
 * the last one winning; a bool flag takes a value only with {@code =} ({@code --leader-elect false}
 * is {@code --leader-elect} on, and an argument {@code false}).
 */
public final class CcmFlags {

  public static final String LEADER_ELECT = "--leader-elect";
  public static final String LEADER_ELECT_RESOURCE_NAME = "--leader-elect-resource-name";
  public static final String LEADER_ELECT_RESOURCE_NAMESPACE = "--leader-elect-resource-namespace";
  public static final String ALLOCATE_NODE_CIDRS = "--allocate-node-cidrs";
  public static final String CONFIGURE_CLOUD_ROUTES = "--configure-cloud-routes";

  /** The bool flags the doctor reads. */
  static final Set<String> BOOL_FLAGS =
      Set.of(LEADER_ELECT, ALLOCATE_NODE_CIDRS, CONFIGURE_CLOUD_ROUTES);

  /** Go's strconv.ParseBool spellings of false, which upstream's flags accept. */
  private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");

  /** Go's strconv.ParseBool spellings of true. */
  private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");

  /**
   * A change to a command line: its words from {@code from} (inclusive) to {@code to} (exclusive)
   * become {@code word}.
   */
  public record Edit(int from, int to, String word) {}

  /**
   * A bool flag written without {@code =} and followed by a word: pflag leaves the flag on and
   * takes the word ({@code words[index + 1]}) for an argument.
   *
   * @param index where the flag is among the words
   */
  public record StrayArgument(String flag, String word, int index) {

    /** What was most likely meant, when the word is a bool: {@code --leader-elect=false}. */
    Optional<String> meant() {
      return FALSE.contains(word) || TRUE.contains(word)
          ? Optional.of(flag + "=" + word)
          : Optional.empty();
    }
  }

  private CcmFlags() {}

  /**
   * The value of the flag's last occurrence; empty when absent or given without a value (a bool
   * flag's value only follows {@code =}).
   */
  public static Optional<String> value(List<String> words, String flag) {
    String found = null;
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word == null) {
        continue;
      }
      if (word.startsWith(flag + "=")) {
        found = word.substring(flag.length() + 1);
      } else if (word.equals(flag)
          && !BOOL_FLAGS.contains(flag)
          && i + 1 < words.size()
          && !isFlag(words.get(i + 1))) {
        found = words.get(i + 1);
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * Whether the words switch leader election off ({@code --leader-elect=false}, {@code =0}, ...).
   */
  public static boolean leaderElectionOff(List<String> words) {
    return !bool(words, LEADER_ELECT, true);
  }

  /** The edits that turn every false {@code --leader-elect=…} true. */
  static List<Edit> leaderElectionOn(List<String> words) {
    List<Edit> edits = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word != null
          && word.startsWith(LEADER_ELECT + "=")
          && FALSE.contains(word.substring(LEADER_ELECT.length() + 1))) {
        edits.add(new Edit(i, i + 1, LEADER_ELECT + "=true"));
      }
    }
    return edits;
  }

  /**
   * A boolean flag's value: {@code --flag}, {@code --flag=true} (Go's spellings), or the default
   * when absent. A word after {@code --flag} is no value of it ({@link #strayArguments}).
   */
  public static boolean bool(List<String> words, String flag, boolean defaultValue) {
    boolean result = defaultValue;
    for (String word : words) {
      if (word == null) {
        continue;
      }
      if (word.equals(flag)) {
        result = true;
      } else if (word.startsWith(flag + "=")) {
        result = !FALSE.contains(word.substring(flag.length() + 1));
      }
    }
    return result;
  }

  /**
   * The words that follow a bool flag written without {@code =}: pflag takes each for an argument,
   * which the upstream manager refuses (its command takes none), so it exits at start.
   */
  static List<StrayArgument> strayArguments(List<String> words) {
    List<StrayArgument> strays = new ArrayList<>();
    for (int i = 0; i + 1 < words.size(); i++) {
      String next = words.get(i + 1);
      String word = words.get(i);
      if (word != null && BOOL_FLAGS.contains(word) && !isFlag(next) && !next.isEmpty()) {
        strays.add(new StrayArgument(word, next, i));
      }
    }
    return strays;
  }

  /**
   * The edits that write each stray bool into its flag, as meant: {@code --leader-elect false}
   * becomes {@code --leader-elect=false}. A stray word that is no bool is left to the user.
   */
  static List<Edit> straysJoined(List<String> words) {
    return strayArguments(words).stream()
        .flatMap(
            stray ->
                stray.meant().stream()
                    .map(meant -> new Edit(stray.index(), stray.index() + 2, meant)))
        .toList();
  }

  /**
   * Whether {@code --controllers} (upstream's syntax: {@code *}, {@code name}, {@code -name};
   * default {@code *}) runs the controller known by any of {@code names} (its name and aliases):
   * the first entry naming it decides, else {@code *} (A7, as ccm4j's own {@code
   * ControllerSelection}). Names of other CCMs' controllers are passed over, not refused.
   */
  public static boolean runsController(List<String> words, Set<String> names) {
    List<String> selection =
        value(words, "--controllers").map(v -> List.of(v.split(","))).orElse(List.of("*"));
    boolean star = false;
    for (String item : selection) {
      String name = item.trim();
      if (names.contains(name)) {
        return true;
      }
      if (name.startsWith("-") && names.contains(name.substring(1))) {
        return false;
      }
      star |= name.equals("*");
    }
    return star;
  }

  /** Whether {@code --controllers} names the controller itself (not only through {@code *}). */
  public static boolean names(
      List<String> words, io.ccm4j.controllers.ControllerDescriptor controller) {
    return value(words, "--controllers").stream()
        .flatMap(v -> java.util.Arrays.stream(v.split(",")))
        .map(String::trim)
        .anyMatch(name -> name.equals(controller.name()) || name.equals(controller.alias()));
  }

  private static boolean isFlag(String word) {
    return word == null || word.startsWith("-");
  }
}
