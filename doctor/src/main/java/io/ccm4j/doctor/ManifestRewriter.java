package io.ccm4j.doctor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Rewrites a manifest's text so that it holds the fixed objects, changing only the fields the fix
 * changed: comments, key order, quoting and the formatting of everything else stay as they are. The
 * edits are placed by the positions of the YAML parser's nodes (SnakeYAML's composer): a changed
 * scalar is replaced where it stands, an added key goes after its mapping's last entry at that
 * entry's indentation, added list items after the last item, in the block or flow style the
 * collection is written in. A deleted entry takes the comment lines that annotate it with it.
 */
final class ManifestRewriter {

  /**
   * One object's change: its place among the file's objects (a {@code kind: List}'s items counted
   * one by one, as {@link Manifests} reads them) and its values before and after the fix.
   */
  record Change(int index, Map<String, Object> before, Map<String, Object> after) {}

  /** Keys a person writes first; the others follow in the model's order. */
  private static final List<String> FIRST_KEYS =
      List.of("name", "key", "operator", "value", "effect", "type");

  private static final ObjectMapper JSON = new ObjectMapper();

  private record Edit(int start, int end, String text, int order) {}

  private final String text;

  /** The text's line break: inserted lines use it too. */
  private final String newline;

  private final int[] charOffsets;
  private final List<Edit> edits = new ArrayList<>();
  private boolean indentedSequences;

  /** The text is JSON (kubectl takes a file that starts with a brace as JSON): edits stay JSON. */
  private final boolean json;

  private ManifestRewriter(String text) {
    this.text = text;
    this.json = text.stripLeading().startsWith("{") || text.stripLeading().startsWith("[");
    this.newline = text.contains("\r\n") ? "\r\n" : "\n";
    this.charOffsets = text.codePoints().count() == text.length() ? null : codePointOffsets(text);
  }

  /**
   * The text with each change applied.
   *
   * @throws IllegalStateException when the text's objects do not line up with the changes, or the
   *     edits would overlap (the caller then writes the objects out in full)
   */
  static String rewrite(String text, List<Change> changes) {
    ManifestRewriter rewriter = new ManifestRewriter(text);
    List<MappingNode> objects = objectNodes(text);
    for (Change change : changes) {
      if (change.index() >= objects.size()) {
        throw new IllegalStateException("object " + change.index() + " not found in the text");
      }
      MappingNode object = objects.get(change.index());
      rewriter.indentedSequences = indentsSequences(object);
      rewriter.editMapping(object, change.before(), change.after());
    }
    return rewriter.apply();
  }

  /** The file's objects in order, a {@code kind: List}'s items in its place. */
  private static List<MappingNode> objectNodes(String text) {
    List<MappingNode> objects = new ArrayList<>();
    for (Node root : new Yaml(Manifests.loaderOptions()).composeAll(new StringReader(text))) {
      if (!(root instanceof MappingNode mapping)) {
        continue;
      }
      Node items = valueOf(mapping, "items");
      if (valueOf(mapping, "kind") instanceof ScalarNode kind
          && "List".equals(kind.getValue())
          && items instanceof SequenceNode list) {
        for (Node item : list.getValue()) {
          if (item instanceof MappingNode itemMapping) {
            objects.add(itemMapping);
          }
        }
      } else {
        objects.add(mapping);
      }
    }
    return objects;
  }

  private static Node valueOf(MappingNode mapping, String key) {
    for (NodeTuple tuple : mapping.getValue()) {
      if (tuple.getKeyNode() instanceof ScalarNode scalar && key.equals(scalar.getValue())) {
        return tuple.getValueNode();
      }
    }
    return null;
  }

  /** Whether the object's block lists are indented under their key (else at the key's column). */
  private static boolean indentsSequences(Node node) {
    if (node instanceof MappingNode mapping
        && mapping.getFlowStyle() != DumperOptions.FlowStyle.FLOW) {
      for (NodeTuple tuple : mapping.getValue()) {
        Node value = tuple.getValueNode();
        if (value instanceof SequenceNode sequence
            && sequence.getFlowStyle() != DumperOptions.FlowStyle.FLOW
            && !sequence.getValue().isEmpty()) {
          return sequence.getStartMark().getColumn()
              > tuple.getKeyNode().getStartMark().getColumn();
        }
        if (value instanceof MappingNode && indentsSequences(value)) {
          return true;
        }
      }
    }
    return false;
  }

  @SuppressWarnings("unchecked")
  private void editMapping(
      MappingNode mapping, Map<String, Object> before, Map<String, Object> after) {
    boolean flow = mapping.getFlowStyle() == DumperOptions.FlowStyle.FLOW;
    List<NodeTuple> tuples = mapping.getValue();
    if (tuples.isEmpty()) {
      replaceNode(mapping, after, null, true);
      return;
    }
    Set<String> written = new HashSet<>();
    for (int i = 0; i < tuples.size(); i++) {
      NodeTuple tuple = tuples.get(i);
      if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
        continue;
      }
      String key = keyNode.getValue();
      written.add(key);
      boolean wasThere = before.containsKey(key);
      boolean isThere = after.containsKey(key);
      Object old = before.get(key);
      Object now = after.get(key);
      if ((!wasThere && !isThere) || (isThere && Objects.equals(old, now))) {
        continue;
      }
      if (!isThere) {
        deleteTuple(tuples, i, flow);
      } else if (tuple.getValueNode() instanceof MappingNode child
          && old instanceof Map<?, ?> oldMap
          && now instanceof Map<?, ?> newMap) {
        editMapping(child, (Map<String, Object>) oldMap, (Map<String, Object>) newMap);
      } else if (tuple.getValueNode() instanceof SequenceNode child
          && old instanceof List<?> oldList
          && now instanceof List<?> newList) {
        editSequence(child, oldList, newList, keyNode);
      } else {
        replaceNode(tuple.getValueNode(), now, keyNode, flow);
      }
    }
    NodeTuple last = tuples.getLast();
    // Where added keys go when no entry stays: where the deleted ones began (their lines go).
    int inPlaceOfDeleted = -1;
    if (!flow) {
      // Added keys go after the last entry that stays: a deleted entry's lines go with it.
      boolean stays = false;
      for (NodeTuple tuple : tuples.reversed()) {
        if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)
            || !before.containsKey(keyNode.getValue())
            || after.containsKey(keyNode.getValue())) {
          last = tuple;
          stays = true;
          break;
        }
      }
      int keyStart = start(tuples.getFirst().getKeyNode());
      int lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
      int from = commentsAbove(lineStart, keyStart - lineStart);
      if (!stays && text.substring(lineStart, keyStart).isBlank() && from > 0) {
        inPlaceOfDeleted = lineBreakBefore(from);
      }
    }
    for (Map.Entry<String, Object> entry : after.entrySet()) {
      if (written.contains(entry.getKey()) || before.containsKey(entry.getKey())) {
        continue;
      }
      if (flow) {
        String key = json ? flow(entry.getKey()) : entry.getKey();
        insert(end(last.getValueNode()), ", " + key + ": " + flow(entry.getValue()));
      } else {
        Map<String, Object> single = new LinkedHashMap<>();
        single.put(entry.getKey(), entry.getValue());
        int column = tuples.getFirst().getKeyNode().getStartMark().getColumn();
        if (inPlaceOfDeleted >= 0) {
          insert(inPlaceOfDeleted, "\n" + indentAll(block(single), column));
        } else {
          insert(lineEnd(end(last.getValueNode())), "\n" + indentAll(block(single), column));
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void editSequence(SequenceNode sequence, List<?> before, List<?> after, ScalarNode key) {
    boolean flow = sequence.getFlowStyle() == DumperOptions.FlowStyle.FLOW;
    List<Node> items = sequence.getValue();
    if (items.size() != before.size() || items.isEmpty()) {
      replaceNode(sequence, after, key, flow);
      return;
    }
    if (after.size() == before.size()) {
      for (int i = 0; i < items.size(); i++) {
        Object old = before.get(i);
        Object now = after.get(i);
        if (Objects.equals(old, now)) {
          continue;
        }
        Node item = items.get(i);
        if (item instanceof MappingNode mapping
            && old instanceof Map<?, ?> oldMap
            && now instanceof Map<?, ?> newMap) {
          editMapping(mapping, (Map<String, Object>) oldMap, (Map<String, Object>) newMap);
        } else {
          replaceNode(item, now, null, flow);
        }
      }
      return;
    }
    if (after.size() > before.size() && after.subList(0, before.size()).equals(before)) {
      Node last = items.getLast();
      for (Object added : after.subList(before.size(), after.size())) {
        if (flow) {
          insert(end(last), ", " + flow(added));
        } else {
          insert(
              lineEnd(end(last)),
              "\n" + indentAll(block(List.of(added)), sequence.getStartMark().getColumn()));
        }
      }
      return;
    }
    replaceNode(sequence, after, key, flow);
  }

  /**
   * Replaces a value: in place when it is written in flow style or becomes a scalar; a block
   * collection under its key (from the colon on) or as a list item (from the item on).
   */
  private void replaceNode(Node node, Object value, ScalarNode key, boolean inFlow) {
    boolean collection =
        (value instanceof Map<?, ?> map && !map.isEmpty())
            || (value instanceof List<?> list && !list.isEmpty());
    boolean nodeIsFlow =
        (node instanceof MappingNode m && m.getFlowStyle() == DumperOptions.FlowStyle.FLOW)
            || (node instanceof SequenceNode s && s.getFlowStyle() == DumperOptions.FlowStyle.FLOW);
    if (inFlow || nodeIsFlow || !collection) {
      String written = inFlow || nodeIsFlow || collection ? flow(value) : scalar(value, node);
      if (node instanceof ScalarNode scalar && emptyNull(scalar) && key != null) {
        int colon = text.indexOf(':', end(key));
        replace(colon, colon + 1, ": " + written);
      } else {
        replace(start(node), end(node), written);
      }
      return;
    }
    if (key == null) {
      int column = node.getStartMark().getColumn();
      String rendered = block(value);
      replace(start(node), end(node), indentRest(rendered, column));
      return;
    }
    int keyColumn = key.getStartMark().getColumn();
    int column = value instanceof List<?> && !indentedSequences ? keyColumn : keyColumn + 2;
    if (value instanceof List<?>
        && node instanceof SequenceNode old
        && old.getFlowStyle() != DumperOptions.FlowStyle.FLOW
        && !old.getValue().isEmpty()) {
      // A list rewritten where it stands keeps its own items' column, whatever the others do.
      column = old.getStartMark().getColumn();
    }
    int from = text.indexOf(':', end(key));
    int to =
        node instanceof ScalarNode scalar && emptyNull(scalar)
            ? from + 1
            : Math.max(end(node), from + 1);
    replace(from, to, ":\n" + indentAll(block(value), column));
  }

  private boolean emptyNull(ScalarNode scalar) {
    return start(scalar) >= end(scalar)
        || scalar.getValue().isEmpty() && scalar.getTag().getValue().endsWith(":null");
  }

  /** Deletes an entry: its lines in block style; the entry and its comma in flow style. */
  private void deleteTuple(List<NodeTuple> tuples, int i, boolean flow) {
    NodeTuple tuple = tuples.get(i);
    int keyStart = start(tuple.getKeyNode());
    int valueEnd = end(tuple.getValueNode());
    if (flow) {
      if (i > 0) {
        replace(end(tuples.get(i - 1).getValueNode()), valueEnd, "");
      } else if (tuples.size() > 1) {
        replace(keyStart, start(tuples.get(1).getKeyNode()), "");
      } else {
        replace(keyStart, valueEnd, "");
      }
      return;
    }
    int lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
    boolean aloneOnItsLine = text.substring(lineStart, keyStart).isBlank();
    if (!aloneOnItsLine) {
      // The first key of a list item ("- key: ..."): the next key takes its place.
      if (tuples.size() > 1) {
        replace(keyStart, start(tuples.get(i + 1).getKeyNode()), "");
      } else {
        replace(keyStart, valueEnd, "{}");
      }
      return;
    }
    int lineEnd = lineEnd(valueEnd);
    int from = commentsAbove(lineStart, keyStart - lineStart);
    if (from == 0) {
      int next = text.indexOf('\n', lineEnd);
      replace(from, next < 0 ? text.length() : next + 1, "");
      return;
    }
    // The line break before the lines goes with them, not the one after: a key added after the
    // entry before, or after the mapping holding this one, goes where they ended.
    replace(lineBreakBefore(from), lineEnd, "");
  }

  /** Where the line break ending the line before {@code lineStart} begins (its \r, if any). */
  private int lineBreakBefore(int lineStart) {
    int lineBreak = lineStart - 1;
    return lineBreak > 0 && text.charAt(lineBreak - 1) == '\r' ? lineBreak - 1 : lineBreak;
  }

  /**
   * Where the comment lines that annotate the line starting at {@code lineStart} begin: those right
   * above it (no blank line between) at its indentation, which go with a deleted entry.
   */
  private int commentsAbove(int lineStart, int indentation) {
    int start = lineStart;
    while (start > 0) {
      int above = text.lastIndexOf('\n', start - 2) + 1;
      String line = text.substring(above, start - 1).stripTrailing();
      String comment = line.stripLeading();
      if (!comment.startsWith("#") || line.length() - comment.length() != indentation) {
        break;
      }
      start = above;
    }
    return start;
  }

  private void insert(int at, String inserted) {
    replace(at, at, inserted);
  }

  private void replace(int start, int end, String replacement) {
    edits.add(new Edit(start, end, replacement.replace("\n", newline), edits.size()));
  }

  private String apply() {
    List<Edit> sorted =
        edits.stream()
            // At one offset an insertion goes first: a deletion starting there cannot hold it.
            .sorted(
                Comparator.comparingInt(Edit::start)
                    .thenComparing(edit -> edit.end() > edit.start())
                    .thenComparingInt(Edit::order))
            .toList();
    StringBuilder out = new StringBuilder();
    int position = 0;
    for (Edit edit : sorted) {
      if (edit.start() < position) {
        throw new IllegalStateException("overlapping edits at offset " + edit.start());
      }
      out.append(text, position, edit.start()).append(edit.text());
      position = edit.end();
    }
    return out.append(text.substring(position)).toString();
  }

  /** Where a node starts, as an index into the text. */
  private int start(Node node) {
    return offset(node.getStartMark().getIndex());
  }

  /**
   * Where a node ends, as an index into the text: a block collection ends with its last value (its
   * parser mark lies past the comments and blank lines that follow).
   */
  private int end(Node node) {
    if (node instanceof MappingNode mapping
        && mapping.getFlowStyle() != DumperOptions.FlowStyle.FLOW
        && !mapping.getValue().isEmpty()) {
      return end(mapping.getValue().getLast().getValueNode());
    }
    if (node instanceof SequenceNode sequence
        && sequence.getFlowStyle() != DumperOptions.FlowStyle.FLOW
        && !sequence.getValue().isEmpty()) {
      return end(sequence.getValue().getLast());
    }
    int end = offset(node.getEndMark().getIndex());
    // A block scalar (|, >) ends after its line break.
    while (end > 0
        && end <= text.length()
        && (text.charAt(end - 1) == '\n' || text.charAt(end - 1) == '\r')) {
      end--;
    }
    return end;
  }

  /** The end of the line the offset is on (the index of its line break, or the text's end). */
  private int lineEnd(int offset) {
    int lineBreak = text.indexOf('\n', offset);
    if (lineBreak < 0) {
      return text.length();
    }
    return lineBreak > 0 && text.charAt(lineBreak - 1) == '\r' ? lineBreak - 1 : lineBreak;
  }

  private int offset(int codePointIndex) {
    return charOffsets == null ? codePointIndex : charOffsets[codePointIndex];
  }

  private static int[] codePointOffsets(String text) {
    int[] offsets = new int[(int) text.codePoints().count() + 1];
    int index = 0;
    for (int i = 0; i < text.length(); i = text.offsetByCodePoints(i, 1)) {
      offsets[index++] = i;
    }
    offsets[index] = text.length();
    return offsets;
  }

  private String block(Object value) {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndent(2);
    options.setWidth(Integer.MAX_VALUE);
    options.setSplitLines(false);
    if (indentedSequences) {
      options.setIndicatorIndent(2);
      options.setIndentWithIndicator(true);
    }
    return dedent(strip(new Yaml(options).dump(ordered(value))));
  }

  /** The lines without the indentation they share (a top-level list indented by the dumper). */
  private static String dedent(String lines) {
    int common =
        lines
            .lines()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    return String.join(
        "\n",
        lines
            .lines()
            .map(line -> line.length() >= common ? line.substring(common) : line)
            .toList());
  }

  private String flow(Object value) {
    if (json) {
      try {
        return JSON.writeValueAsString(ordered(value));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.FLOW);
    options.setWidth(Integer.MAX_VALUE);
    options.setSplitLines(false);
    return strip(new Yaml(options).dump(ordered(value)));
  }

  /** A scalar, in the quotes (or the literal block) the value it replaces was written in. */
  private String scalar(Object value, Node replaced) {
    if (value instanceof String string && replaced instanceof ScalarNode old) {
      switch (old.getScalarStyle()) {
        case LITERAL -> {
          String block = literal(string, old);
          if (block != null) {
            return block;
          }
        }
        case DOUBLE_QUOTED -> {
          return "\"" + string.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }
        case SINGLE_QUOTED -> {
          return "'" + string.replace("'", "''") + "'";
        }
        default -> {}
      }
    }
    return flow(value);
  }

  /**
   * A literal block scalar ({@code |}) under the header and at the indentation of the one it
   * replaces, or null when the value cannot be written so: its first line starts with a space, or
   * its trailing line breaks differ (they stay in the text after the block).
   */
  private String literal(String value, ScalarNode old) {
    int headerEnd = lineEnd(start(old));
    int contentStart = headerEnd + (text.startsWith("\r\n", headerEnd) ? 2 : 1);
    String firstLine = text.substring(contentStart, lineEnd(contentStart));
    int indentation = firstLine.length() - firstLine.stripLeading().length();
    String content = value.stripTrailing();
    if (indentation == 0
        || content.startsWith(" ")
        || trailingBreaks(value) != trailingBreaks(old.getValue())
        || !value.substring(content.length()).matches("\n*")) {
      return null;
    }
    String pad = " ".repeat(indentation);
    return text.substring(start(old), headerEnd)
        + "\n"
        + String.join("\n", content.lines().map(line -> line.isEmpty() ? "" : pad + line).toList());
  }

  private static int trailingBreaks(String value) {
    return value.length() - value.stripTrailing().length();
  }

  private static String strip(String dumped) {
    return dumped.endsWith("\n") ? dumped.substring(0, dumped.length() - 1) : dumped;
  }

  /** Maps with the keys a person writes first first, as in {@code key, operator, effect}. */
  private static Object ordered(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> ordered = new LinkedHashMap<>();
      FIRST_KEYS.stream()
          .filter(map::containsKey)
          .forEach(k -> ordered.put(k, ordered(map.get(k))));
      map.forEach((k, v) -> ordered.putIfAbsent(k, ordered(v)));
      return ordered;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(ManifestRewriter::ordered).toList();
    }
    return value;
  }

  private static String indentAll(String lines, int column) {
    String pad = " ".repeat(column);
    return pad + lines.replace("\n", "\n" + pad);
  }

  private static String indentRest(String lines, int column) {
    return lines.replace("\n", "\n" + " ".repeat(column));
  }
}
