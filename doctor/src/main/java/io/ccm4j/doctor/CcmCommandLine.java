package io.ccm4j.doctor;

import io.fabric8.kubernetes.api.model.Container;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A container's command line as the words of the program it runs, read from and edited in its
 * {@code command} and {@code args}. When they hand a script to a shell ({@code sh -c "exec /bin/ccm
 * --flag=x"}, or {@code args: [-c, "…"]} for an image whose entrypoint is a shell), the words are
 * those of the script's command that runs the CCM ({@link ShellScript}), and edits are made inside
 * the script where that is safe.
 */
final class CcmCommandLine {

  /** Shells whose {@code -c} runs a script. */
  private static final Set<String> SHELLS = Set.of("sh", "bash", "ash", "dash", "zsh", "ksh");

  private final Container container;
  private final List<String> words = new ArrayList<>();

  /** For each word, whether it stands in the command (else in the arguments). */
  private final List<Boolean> inCommand = new ArrayList<>();

  /** The script the words come from, if a shell runs one; its place among the words. */
  private ShellScript script;

  private List<ShellScript.Word> scriptWords = List.of();
  private int scriptIndex = -1;

  CcmCommandLine(Container container) {
    this.container = container;
    if (container.getCommand() != null) {
      container.getCommand().forEach(word -> add(word, true));
    }
    if (container.getArgs() != null) {
      container.getArgs().forEach(word -> add(word, false));
    }
    scriptIndex =
        scriptIndex(words, container.getCommand() == null || container.getCommand().isEmpty());
    if (scriptIndex >= 0) {
      script = new ShellScript(words.get(scriptIndex));
      scriptWords = script.command(CcmRecognition::isCcmName);
    }
  }

  private void add(String word, boolean command) {
    words.add(word);
    inCommand.add(command);
  }

  /**
   * Where the script stands among the words of a shell's command line: after the shell and its
   * options, one of which has {@code c}; -1 when the words run no script.
   *
   * @param argsOnly the container gives no command: the image's entrypoint may be the shell
   */
  private static int scriptIndex(List<String> words, boolean argsOnly) {
    int i;
    if (!argsOnly && !words.isEmpty() && words.getFirst() != null) {
      String program = words.getFirst().substring(words.getFirst().lastIndexOf('/') + 1);
      if (!SHELLS.contains(program)) {
        return -1;
      }
      i = 1;
    } else {
      i = 0;
    }
    boolean script = false;
    while (i < words.size()
        && words.get(i) != null
        && words.get(i).matches("-[a-z]+")
        && !words.get(i).equals("--")) {
      script |= words.get(i).contains("c");
      i++;
    }
    return script && i < words.size() && words.get(i) != null ? i : -1;
  }

  /** The program's words: the command's, then the arguments' (or the script's command's). */
  List<String> words() {
    if (script != null) {
      return scriptWords.stream().map(ShellScript.Word::value).toList();
    }
    return Collections.unmodifiableList(new ArrayList<>(words));
  }

  /** The program run (the first word of the command, or of the script's command), if known. */
  Optional<String> program() {
    if (script != null) {
      return scriptWords.stream().findFirst().map(ShellScript.Word::value);
    }
    return container.getCommand() == null || container.getCommand().isEmpty()
        ? Optional.empty()
        : Optional.ofNullable(container.getCommand().getFirst());
  }

  /** Whether the words are those of a shell script's command (the shell expands {@code $X}). */
  boolean fromScript() {
    return script != null;
  }

  /**
   * Why edits cannot be written into this command line: it is a shell script this reading may not
   * rewrite ({@link ShellScript#notRewritable}); empty when they can.
   */
  Optional<String> notRewritable() {
    return script == null ? Optional.empty() : script.notRewritable();
  }

  /**
   * Writes the edits (each made on {@link #words} as they are, none overlapping) into the
   * container: an edited word stays in the list its first word stood in; in a script, in place.
   *
   * @return whether they were written; false when a script cannot be rewritten safely, which is
   *     then left as it is
   */
  boolean apply(List<CcmFlags.Edit> edits) {
    if (edits.isEmpty()) {
      return true;
    }
    List<CcmFlags.Edit> lastFirst =
        edits.stream().sorted(Comparator.comparingInt(CcmFlags.Edit::from).reversed()).toList();
    if (script != null) {
      return applyToScript(lastFirst);
    }
    for (CcmFlags.Edit edit : lastFirst) {
      boolean command = inCommand.get(edit.from());
      words.subList(edit.from(), edit.to()).clear();
      inCommand.subList(edit.from(), edit.to()).clear();
      words.add(edit.from(), edit.word());
      inCommand.add(edit.from(), command);
    }
    List<String> command = new ArrayList<>();
    List<String> args = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      (inCommand.get(i) ? command : args).add(words.get(i));
    }
    container.setCommand(container.getCommand() == null && command.isEmpty() ? null : command);
    container.setArgs(container.getArgs() == null && args.isEmpty() ? null : args);
    return true;
  }

  /**
   * The edits made in the script's text, the last first so that the earlier words keep their
   * places; written only when the edited script reads back as the edited words.
   */
  private boolean applyToScript(List<CcmFlags.Edit> lastFirst) {
    List<String> expected = new ArrayList<>(words());
    ShellScript edited = script;
    for (CcmFlags.Edit edit : lastFirst) {
      Optional<String> text = edited.replaced(scriptWords, edit.from(), edit.to(), edit.word());
      if (text.isEmpty()) {
        return false;
      }
      edited = new ShellScript(text.get());
      expected.subList(edit.from(), edit.to()).clear();
      expected.add(edit.from(), edit.word());
    }
    List<String> readBack =
        edited.command(CcmRecognition::isCcmName).stream().map(ShellScript.Word::value).toList();
    if (!readBack.equals(expected)) {
      return false;
    }
    List<String> list = inCommand.get(scriptIndex) ? container.getCommand() : container.getArgs();
    int at = inCommand.get(scriptIndex) ? scriptIndex : scriptIndex - commandSize();
    List<String> changed = new ArrayList<>(list);
    changed.set(at, edited.text());
    if (inCommand.get(scriptIndex)) {
      container.setCommand(changed);
    } else {
      container.setArgs(changed);
    }
    return true;
  }

  private int commandSize() {
    return container.getCommand() == null ? 0 : container.getCommand().size();
  }
}
