package io.ccm4j.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads and rewrites a cloud-controller-manager's flags in a container's command line: {@code
 * --flag=value} and {@code --flag value}, the last one winning, as both pflag and picocli do.
 */
public final class CcmFlags {

  public static final String LEADER_ELECT = "--leader-elect";
  public static final String LEADER_ELECT_RESOURCE_NAME = "--leader-elect-resource-name";
  public static final String LEADER_ELECT_RESOURCE_NAMESPACE = "--leader-elect-resource-namespace";

  /** Go's strconv.ParseBool spellings of false, which upstream's flags accept. */
  private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");

  private CcmFlags() {}

  /** The value of the flag's last occurrence; empty when absent or given without a value. */
  public static Optional<String> value(List<String> words, String flag) {
    String found = null;
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word == null) {
        continue;
      }
      if (word.startsWith(flag + "=")) {
        found = word.substring(flag.length() + 1);
      } else if (word.equals(flag) && i + 1 < words.size() && !isFlag(words.get(i + 1))) {
        found = words.get(i + 1);
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * Whether the words switch leader election off ({@code --leader-elect=false}, {@code 0}, ...).
   */
  public static boolean leaderElectionOff(List<String> words) {
    return value(words, LEADER_ELECT).filter(FALSE::contains).isPresent();
  }

  /** The words with every false {@code --leader-elect} turned true, in either form. */
  public static List<String> withLeaderElection(List<String> words) {
    List<String> result = new ArrayList<>(words);
    for (int i = 0; i < result.size(); i++) {
      String word = result.get(i);
      if (word == null) {
        continue;
      }
      if (word.startsWith(LEADER_ELECT + "=")
          && FALSE.contains(word.substring(LEADER_ELECT.length() + 1))) {
        result.set(i, LEADER_ELECT + "=true");
      } else if (word.equals(LEADER_ELECT)
          && i + 1 < result.size()
          && FALSE.contains(result.get(i + 1))) {
        result.set(i + 1, "true");
      }
    }
    return result;
  }

  /**
   * A boolean flag's value: {@code --flag}, {@code --flag=true} (Go's spellings), or the default
   * when absent.
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
