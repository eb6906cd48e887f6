package io.ccm4j.app.options;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A command's arguments as upstream's flag parser (pflag) reads them: {@code _} in a flag's name is
 * {@code -} ({@link WordSeparators}), bool flags stand alone ({@link GoBool.StandAlone}), and a
 * flag of one value given twice keeps the last ({@code --v=2 --v=4} is verbosity 4), as kustomize
 * overlays and charts that append arguments rely on. Picocli instead takes a repeated option of an
 * argument group for a second occurrence of the groups, and the command kept only the last
 * occurrence of each: the flags of other groups given before the repeat were lost ({@code
 * --cloud-provider=aws --v=1 --v=2 --cluster-name=x} ran without a provider). The earlier
 * occurrences are dropped before picocli reads the arguments.
 */
public final class LastOccurrenceWins implements IParameterPreprocessor {

  private final WordSeparators wordSeparators = new WordSeparators();
  private final GoBool.StandAlone standAlone = new GoBool.StandAlone();

  @Override
  public boolean preprocess(
      Stack<String> args, CommandSpec command, ArgSpec unused, Map<String, Object> info) {
    wordSeparators.preprocess(args, command, unused, info);
    standAlone.preprocess(args, command, unused, info);
    // The stack's top (its end) is the next argument: position i in reading order is
    // args.size() - 1 - i.
    List<String> words = new ArrayList<>(args);
    java.util.Collections.reverse(words);
    Map<OptionSpec, List<int[]>> occurrences = new HashMap<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word.equals("--")) {
        break;
      }
      Lookup found = lookup(command, word);
      if (found == null || found.flag().isMultiValue()) {
        continue;
      }
      boolean valueFollows = !found.attached() && takesAValue(found.flag()) && i + 1 < words.size();
      occurrences
          .computeIfAbsent(found.flag(), f -> new ArrayList<>())
          .add(new int[] {i, valueFollows ? 2 : 1});
      if (valueFollows) {
        i++;
      }
    }
    boolean[] dropped = new boolean[words.size()];
    for (List<int[]> spans : occurrences.values()) {
      for (int[] span : spans.subList(0, spans.size() - 1)) {
        for (int k = 0; k < span[1]; k++) {
          dropped[span[0] + k] = true;
        }
      }
    }
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      if (!dropped[i]) {
        kept.add(words.get(i));
      }
    }
    if (kept.size() != words.size()) {
      java.util.Collections.reverse(kept);
      args.clear();
      args.addAll(kept);
    }
    return false;
  }

  private record Lookup(OptionSpec flag, boolean attached) {}

  /** The option {@code word} names, and whether its value is attached ({@code =v}, {@code -v2}). */
  private static Lookup lookup(CommandSpec command, String word) {
    if (!word.startsWith("-")) {
      return null;
    }
    OptionSpec flag = command.optionsMap().get(word);
    if (flag != null) {
      return new Lookup(flag, false);
    }
    int equals = word.indexOf('=');
    if (equals > 0) {
      flag = command.optionsMap().get(word.substring(0, equals));
      if (flag != null) {
        return new Lookup(flag, true);
      }
    }
    if (!word.startsWith("--") && word.length() > 2) {
      flag = command.optionsMap().get(word.substring(0, 2)); // -v2
      if (flag != null && takesAValue(flag)) {
        return new Lookup(flag, true);
      }
    }
    return null;
  }

  /** Whether the option reads the next word as its value (bool flags never do: pflag's rule). */
  private static boolean takesAValue(OptionSpec flag) {
    return flag.type() != boolean.class && flag.type() != Boolean.class && flag.arity().max() > 0;
  }
}
