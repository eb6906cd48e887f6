package io.ccm4j.app.options;

import java.util.ListIterator;
import java.util.Map;
import java.util.Set;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * A bool flag's value as upstream's flag parser (pflag) reads it: spelled as Go's {@code
 * strconv.ParseBool} takes it ({@code 1}, {@code t}, {@code TRUE}, {@code 0}, {@code f}, ...), and
 * given only after {@code =} ({@link StandAlone}).
 */
public final class GoBool implements ITypeConverter<Boolean> {

  private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");
  private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");

  @Override
  public Boolean convert(String value) {
    if (TRUE.contains(value)) {
      return true;
    }
    if (FALSE.contains(value)) {
      return false;
    }
    throw new TypeConversionException(
        "'%s' is not a bool (true, false, 1, 0, t, f)".formatted(value));
  }

  /**
   * A command's bool flags stand alone: pflag reads {@code --flag false} as the flag on and an
   * argument {@code false}, which the upstream manager refuses at start. So does the command,
   * naming the flag, rather than reading a manifest otherwise than the manager it replaces would.
   */
  public static final class StandAlone implements IParameterPreprocessor {

    @Override
    public boolean preprocess(
        Stack<String> args, CommandSpec command, ArgSpec unused, Map<String, Object> info) {
      // The stack's top is the next argument: read from the top down.
      ListIterator<String> words = args.listIterator(args.size());
      while (words.hasPrevious()) {
        String word = words.previous();
        if (word.equals("--")) {
          return false;
        }
        OptionSpec flag = command.optionsMap().get(word);
        if (flag != null && isBool(flag) && words.hasPrevious()) {
          String next = words.previous();
          words.next();
          // An empty word is an empty argument, which the command lets through, as upstream's.
          if (!next.startsWith("-") && !next.isEmpty()) {
            throw new ParameterException(
                command.commandLine(),
                ("%s takes its value only after '=' (%s=%s): '%s' stands alone, an argument,"
                        + " which %s takes none of")
                    .formatted(word, word, next, next, command.name()));
          }
        }
      }
      return false;
    }

    private static boolean isBool(OptionSpec flag) {
      return flag.type() == boolean.class || flag.type() == Boolean.class;
    }
  }
}
