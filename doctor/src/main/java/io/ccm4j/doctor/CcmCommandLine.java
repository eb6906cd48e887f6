package io.ccm4j.doctor;

import io.fabric8.kubernetes.api.model.Container;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * A container's command line as the words of the program it runs, read from and edited in its
 * {@code command} and {@code args}.
 */
final class CcmCommandLine {

  private final Container container;
  private final List<String> words = new ArrayList<>();

  /** For each word, whether it stands in the command (else in the arguments). */
  private final List<Boolean> inCommand = new ArrayList<>();

  CcmCommandLine(Container container) {
    this.container = container;
    if (container.getCommand() != null) {
      container.getCommand().forEach(word -> add(word, true));
    }
    if (container.getArgs() != null) {
      container.getArgs().forEach(word -> add(word, false));
    }
  }

  private void add(String word, boolean command) {
    words.add(word);
    inCommand.add(command);
  }

  /** The command's words, then the arguments'. */
  List<String> words() {
    return Collections.unmodifiableList(new ArrayList<>(words));
  }

  /**
   * Writes the edits (each made on {@link #words} as they are, none overlapping) into the
   * container: an edited word stays in the list its first word stood in.
   */
  void apply(List<CcmFlags.Edit> edits) {
    if (edits.isEmpty()) {
      return;
    }
    for (CcmFlags.Edit edit :
        edits.stream().sorted(Comparator.comparingInt(CcmFlags.Edit::from).reversed()).toList()) {
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
  }
}
