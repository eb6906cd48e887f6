package io.ccm4j.controllers;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The meaning of {@code --controllers} (A7): {@code *} enables every controller not disabled by
 * default, a name enables it, {@code -name} disables it, the first entry that matches a controller
 * decides, and without {@code *} only the listed controllers run. Aliases are accepted everywhere.
 */
public final class ControllerSelection {

  private final List<String> entries;
  private final Set<String> disabledByDefault;
  private final List<String> notes;

  private ControllerSelection(
      List<String> entries, Set<String> disabledByDefault, List<String> notes) {
    this.entries = entries;
    this.disabledByDefault = disabledByDefault;
    this.notes = notes;
  }

  /**
   * Parses the entries, resolving aliases; {@code *} leaves out the controllers not enabled by
   * default.
   *
   * @throws IllegalArgumentException naming the first entry that is no known controller
   */
  public static ControllerSelection parse(List<String> entries) {
    return parse(entries, Controllers.disabledByDefault());
  }

  /**
   * Parses the entries, resolving aliases; {@code *} leaves out {@code disabledByDefault}.
   *
   * @throws IllegalArgumentException naming the first entry that is no known controller
   */
  public static ControllerSelection parse(List<String> entries, Set<String> disabledByDefault) {
    List<String> canonical = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (String raw : entries) {
      String entry = raw.trim();
      if (entry.equals("*")) {
        canonical.add(entry);
        continue;
      }
      boolean disable = entry.startsWith("-");
      String name = disable ? entry.substring(1) : entry;
      String what = Controllers.PROVIDER_CONTROLLERS.get(name);
      if (what != null) {
        canonical.add(entry);
        notes.add(name + ": " + what);
        continue;
      }
      String resolved =
          Controllers.find(name)
              .map(ControllerDescriptor::name)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "\"%s\" is not in the list of known controllers (%s)"
                              .formatted(
                                  name,
                                  Controllers.ALL.stream()
                                      .map(ControllerDescriptor::name)
                                      .collect(Collectors.joining(", ")))));
      canonical.add(disable ? "-" + resolved : resolved);
    }
    return new ControllerSelection(
        List.copyOf(canonical), Set.copyOf(disabledByDefault), List.copyOf(notes));
  }

  /**
   * The entries naming a provider's controller ({@link Controllers#PROVIDER_CONTROLLERS}), each as
   * {@code name: what it is}.
   */
  public List<String> providerControllerNotes() {
    return notes;
  }

  public boolean isEnabled(String canonicalName) {
    boolean star = false;
    for (String entry : entries) {
      if (entry.equals(canonicalName)) {
        return true;
      }
      if (entry.equals("-" + canonicalName)) {
        return false;
      }
      star |= entry.equals("*");
    }
    return star && !disabledByDefault.contains(canonicalName);
  }

  /** The enabled controllers of the manager's own ({@link Controllers#ALL}), in start order. */
  public List<String> enabled() {
    return Controllers.ALL.stream()
        .map(ControllerDescriptor::name)
        .filter(this::isEnabled)
        .toList();
  }
}
