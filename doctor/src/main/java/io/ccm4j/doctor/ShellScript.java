package io.ccm4j.doctor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A script handed to a shell ({@code sh -c "exec /bin/ccm --flag=x"}), split into its simple
 * commands and their words as a POSIX shell splits them: quotes, backslashes, comments, the {@code
 * ;}, {@code &&}, {@code ||}, {@code |}, {@code &} and line breaks between commands, redirections
 * left out. Nothing is expanded: a word with {@code $} or a backquote is kept as written. A word
 * keeps where it stands in the script, so that one can be rewritten in place; a script with a
 * construct this reading does not follow (command substitution, a subshell or group, a
 * here-document, a compound command) is read all the same, but not rewritten.
 */
final class ShellScript {

  /** A word of the script: its value and where it stands ({@code start} to {@code end}). */
  record Word(String value, int start, int end, boolean expands) {}

  /** Words the shell runs a command with, not the command itself. */
  private static final Set<String> PREFIXES = Set.of("exec");

  /** Reserved words that start or continue a compound command. */
  private static final Set<String> RESERVED =
      Set.of(
          "if", "then", "else", "elif", "fi", "while", "until", "for", "do", "done", "case", "esac",
          "!", "{", "}");

  /** An environment assignment before the program ({@code FOO=bar}). */
  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");

  /** Characters a word may have to be written without quotes. */
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private final String text;
  private final List<List<Word>> commands = new ArrayList<>();
  private String notRewritable;

  private List<Word> command = new ArrayList<>();
  private StringBuilder value;
  private int start;
  private int end;
  private boolean expands;
  private boolean redirectTarget;

  ShellScript(String text) {
    this.text = text;
    split();
  }

  /**
   * The words of the command that runs the program {@code isProgram} accepts, without the {@code
   * exec} and environment assignments before it; else of the command with the most flags (the first
   * of those).
   */
  List<Word> command(Predicate<String> isProgram) {
    List<List<Word>> programs = commands.stream().map(ShellScript::program).toList();
    return programs.stream()
        .filter(words -> isProgram.test(baseName(words.getFirst().value())))
        .findFirst()
        .or(
            () ->
                programs.stream()
                    .max(
                        Comparator.comparingLong(
                            words ->
                                words.stream().filter(w -> w.value().startsWith("-")).count())))
        .orElse(List.of());
  }

  String text() {
    return text;
  }

  /** Why this reading may not rewrite the script; empty when it may. */
  Optional<String> notRewritable() {
    return Optional.ofNullable(notRewritable);
  }

  /**
   * The script with the words from {@code from} to {@code to} (exclusive) of {@code words} (a
   * {@link #command}) replaced by {@code word}, in the quotes the first was written in; empty when
   * that cannot be done safely (the script is not rewritable, or a replaced word expands).
   */
  Optional<String> replaced(List<Word> words, int from, int to, String word) {
    if (notRewritable != null
        || words.subList(from, to).stream().anyMatch(Word::expands)
        || word.contains("\n")) {
      return Optional.empty();
    }
    Word first = words.get(from);
    char quote = text.charAt(first.start());
    String written;
    if (PLAIN.matcher(word).matches() && quote != '"' && quote != '\'') {
      written = word;
    } else if (quote == '"' && !word.matches(".*[\"$`\\\\].*")) {
      written = '"' + word + '"';
    } else {
      written = "'" + word.replace("'", "'\\''") + "'";
    }
    return Optional.of(
        text.substring(0, first.start()) + written + text.substring(words.get(to - 1).end()));
  }

  /** The command's words from its program on: {@code exec} and assignments before it left out. */
  private static List<Word> program(List<Word> words) {
    int first = 0;
    while (first < words.size() - 1
        && (PREFIXES.contains(words.get(first).value())
            || RESERVED.contains(words.get(first).value())
            || ASSIGNMENT.matcher(words.get(first).value()).matches())) {
      first++;
    }
    return words.subList(first, words.size());
  }

  private static String baseName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private void split() {
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      char next = i + 1 < text.length() ? text.charAt(i + 1) : 0;
      if (c == ' ' || c == '\t' || c == '\r') {
        endWord();
        i++;
      } else if (c == '\n' || c == ';' || c == '|' || c == '&') {
        endWord();
        endCommand();
        i += (c == '|' || c == '&') && next == c ? 2 : 1;
      } else if (c == '#' && value == null) {
        int lineBreak = text.indexOf('\n', i);
        i = lineBreak < 0 ? text.length() : lineBreak;
      } else if (c == '<' || c == '>') {
        i = redirection(i);
      } else if (c == '(' || c == ')' || (value == null && (c == '{' || c == '}'))) {
        complex("a subshell or group");
        endWord();
        endCommand();
        i++;
      } else if (c == '\\') {
        if (next == '\n') {
          i += 2;
        } else {
          append(i, next == 0 ? "\\" : String.valueOf(next), i + 2);
          i += 2;
        }
      } else if (c == '\'') {
        int close = text.indexOf('\'', i + 1);
        if (close < 0) {
          complex("an unterminated quote");
          close = text.length() - 1;
        }
        append(i, text.substring(i + 1, Math.max(i + 1, close)), close + 1);
        i = close + 1;
      } else if (c == '"') {
        i = doubleQuoted(i);
      } else if (c == '$' || c == '`') {
        i = expansion(i);
      } else {
        append(i, String.valueOf(c), i + 1);
        i++;
      }
    }
    endWord();
    endCommand();
    if (commands.stream()
        .anyMatch(words -> !words.isEmpty() && RESERVED.contains(words.getFirst().value()))) {
      complex("a compound command");
    }
  }

  /** A double-quoted part: backslash escapes only {@code $ ` " \} and the line break. */
  private int doubleQuoted(int open) {
    int i = open + 1;
    StringBuilder part = new StringBuilder();
    while (i < text.length() && text.charAt(i) != '"') {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length() && "$`\"\\\n".indexOf(text.charAt(i + 1)) >= 0) {
        if (text.charAt(i + 1) != '\n') {
          part.append(text.charAt(i + 1));
        }
        i += 2;
        continue;
      }
      if (c == '$' || c == '`') {
        expands = true;
        if (c == '`' || (i + 1 < text.length() && text.charAt(i + 1) == '(')) {
          complex("a command substitution");
        }
      }
      part.append(c);
      i++;
    }
    if (i >= text.length()) {
      complex("an unterminated quote");
    }
    append(open, part.toString(), Math.min(i + 1, text.length()));
    return i + 1;
  }

  /** {@code $NAME}, {@code ${...}}, {@code $(...)} or a backquoted command: kept as written. */
  private int expansion(int at) {
    expands = true;
    char c = text.charAt(at);
    char next = at + 1 < text.length() ? text.charAt(at + 1) : 0;
    int close;
    if (c == '`') {
      complex("a command substitution");
      close = text.indexOf('`', at + 1);
    } else if (next == '(') {
      complex("a command substitution");
      close = matching(at + 1, '(', ')');
    } else if (next == '{') {
      close = text.indexOf('}', at + 1);
    } else {
      close = at;
    }
    int after = close < 0 ? text.length() : close + 1;
    append(at, text.substring(at, after), after);
    return after;
  }

  private int matching(int open, char opening, char closing) {
    int depth = 0;
    for (int i = open; i < text.length(); i++) {
      if (text.charAt(i) == opening) {
        depth++;
      } else if (text.charAt(i) == closing && --depth == 0) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A redirection ({@code >file}, {@code 2>&1}, {@code <<EOF}): its operator, its file descriptor
   * before it and its target are no words of the command.
   */
  private int redirection(int at) {
    if (value != null && value.toString().matches("[0-9]+") && !expands) {
      value = null;
    }
    endWord();
    int i = at;
    while (i < text.length() && "<>&|".indexOf(text.charAt(i)) >= 0) {
      i++;
    }
    if (text.startsWith("<<", at)) {
      complex("a here-document");
    }
    if (text.charAt(i - 1) == '&') {
      while (i < text.length() && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '-')) {
        i++;
      }
    } else {
      redirectTarget = true;
    }
    return i;
  }

  private void append(int from, String part, int to) {
    if (value == null) {
      value = new StringBuilder();
      start = from;
    }
    value.append(part);
    end = to;
  }

  private void endWord() {
    if (value != null) {
      if (!redirectTarget) {
        command.add(new Word(value.toString(), start, end, expands));
      }
      redirectTarget = false;
    }
    value = null;
    expands = false;
  }

  private void endCommand() {
    if (!command.isEmpty()) {
      commands.add(command);
    }
    command = new ArrayList<>();
  }

  private void complex(String construct) {
    if (notRewritable == null) {
      notRewritable = "it has " + construct;
    }
  }
}
