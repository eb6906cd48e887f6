package io.ccm4j.app.options;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A flag's name with {@code _} for {@code -} ({@code --leader_elect=false}) is the flag, as
 * upstream's command reads it: component-base's {@code cli.Run} sets {@code WordSepNormalizeFunc}
 * on every flag set. A word that is the value of the flag before it ({@code --cluster-name
 * --my_name}) is left as it is, as pflag takes it for the value.
 */
public final class WordSeparators implements IParameterPreprocessor {

  @Override
  public boolean preprocess(
      Stack<String> args, CommandSpec command, ArgSpec unused, Map<String, Object> info) {
    // The stack's top (its end) is the next argument.
    List<String> words = new ArrayList<>(args);
    Collections.reverse(words);
    boolean changed = false;
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word.equals("--")) {
        break;
      }
      if (!word.startsWith("--")) {
        continue;
      }
      int equals = word.indexOf('=');
      String name = equals < 0 ? word : word.substring(0, equals);
      String dashed = "--" + name.substring(2).replace('_', '-');
      OptionSpec flag = command.optionsMap().get(dashed);
      if (flag == null) {
        continue;
      }
      if (!dashed.equals(name)) {
        words.set(i, equals < 0 ? dashed : dashed + word.substring(equals));
        changed = true;
      }
      if (equals < 0 && takesAValue(flag)) {
        i++; // its value, whatever it looks like
      }
    }
    if (changed) {
      Collections.reverse(words);
      args.clear();
      args.addAll(words);
    }
    return false;
  }

  private static boolean takesAValue(OptionSpec flag) {
    return flag.type() != boolean.class && flag.type() != Boolean.class && flag.arity().max() > 0;
  }
}
