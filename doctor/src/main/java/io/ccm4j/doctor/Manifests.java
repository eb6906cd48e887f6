package io.ccm4j.doctor;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;

/**
 * Reads manifests as {@code kubectl apply -f} takes them: files or directories (recursively, {@code
 * .yaml}, {@code .yml}, {@code .json}), several YAML documents per file (Helm's rendered output is
 * that), and {@code kind: List} flattened into its items.
 */
public final class Manifests {

  /**
   * Code points a document may have: SnakeYAML's default, 3 MiB, refuses a {@code kubectl get -A -o
   * yaml} of a modest cluster (one {@code kind: List}); a manifest is the user's own file.
   */
  private static final int CODE_POINT_LIMIT = 1 << 30;

  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .loaderOptions(loaderOptions())
              // new YAMLFactory()'s default, which the builder's is not: `env:` is null, not "".
              .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
              .build());

  private Manifests() {}

  /** SnakeYAML's options for a manifest: its code points up to {@link #CODE_POINT_LIMIT}. */
  static LoaderOptions loaderOptions() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(CODE_POINT_LIMIT);
    return options;
  }

  /**
   * The documents of the given files and directories. A file named on its own must be readable (the
   * first bad one throws); in a directory a bad file is reported to {@code skipped}, one each, and
   * the scan goes on with the rest.
   */
  public static List<ManifestDocument> read(List<Path> paths, Consumer<ManifestException> skipped)
      throws ManifestException {
    List<ManifestDocument> documents = new ArrayList<>();
    for (Path path : paths) {
      if (!Files.exists(path)) {
        throw new ManifestException(path, "no such file or directory");
      }
      boolean directory = Files.isDirectory(path);
      for (Path file : files(path, paths, skipped)) {
        try {
          documents.addAll(readFile(file));
        } catch (ManifestException e) {
          if (!directory) {
            throw e;
          }
          skipped.accept(e);
        }
      }
    }
    return documents;
  }

  public static List<ManifestDocument> read(List<Path> paths) throws ManifestException {
    List<ManifestDocument> documents = new ArrayList<>();
    for (Path path : paths) {
      if (!Files.exists(path)) {
        throw new ManifestException(path, "no such file or directory");
      }
      for (Path file : files(path, paths, skipped -> {})) {
        documents.addAll(readFile(file));
      }
    }
    return documents;
  }

  /** A file a kustomization names as a patch: skipped, being no object of its own. */
  public static final class KustomizePatchException extends ManifestException {
    KustomizePatchException(Path file, Path kustomization) {
      super(
          file,
          "a kustomize patch (%s names it), no object of its own: the objects as applied are what"
                  .formatted(kustomization)
              + " kubectl kustomize prints");
    }
  }

  /**
   * A directory a kustomization names as a resource, outside the paths given: not read. The objects
   * it holds, as the kustomization's patches change them, are what {@code kubectl kustomize}
   * prints; judged without them, an overlay's directory holds no CCM at all.
   */
  public static final class KustomizeResourceException extends ManifestException {
    KustomizeResourceException(Path resource, Path kustomization) {
      super(
          resource,
          ("a resource %s names, outside the paths given: not read. The objects as applied are"
                  + " what kubectl kustomize prints: ccm4j doctor <(kubectl kustomize %s)")
              .formatted(kustomization, kustomization.getParent()));
    }
  }

  /** Names kustomize gives its file in a directory. */
  private static final Set<String> KUSTOMIZATIONS =
      Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");

  /**
   * A directory's manifests: its {@code .yaml}, {@code .yml} and {@code .json} files, but for a
   * kustomization's own file and the patches it names, which are no objects of their own (a
   * strategic-merge patch of a DaemonSet has no selector and no image: judged as one, it would be a
   * DaemonSet that tolerates nothing); each patch is reported to {@code skipped}.
   */
  private static List<Path> files(Path path, List<Path> given, Consumer<ManifestException> skipped)
      throws ManifestException {
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    List<Path> all;
    try (Stream<Path> walk = Files.walk(path)) {
      all = walk.filter(Files::isRegularFile).sorted().toList();
    } catch (IOException e) {
      throw new ManifestException(path, "cannot list: " + e.getMessage());
    }
    Map<Path, Path> patches = new HashMap<>();
    for (Path file : all) {
      if (KUSTOMIZATIONS.contains(file.getFileName().toString())) {
        kustomizePatches(file).forEach(patch -> patches.putIfAbsent(patch, file));
        for (Path resource : kustomizeEntries(file, List.of("resources", "bases", "components"))) {
          if (Files.exists(resource) && !within(resource, given)) {
            skipped.accept(new KustomizeResourceException(asGiven(resource, file), file));
          }
        }
      }
    }
    List<Path> files = new ArrayList<>();
    for (Path file : all) {
      if (KUSTOMIZATIONS.contains(file.getFileName().toString())
          || !file.toString().matches(".*\\.(ya?ml|json)$")) {
        continue;
      }
      Path kustomization = patches.get(file.toAbsolutePath().normalize());
      if (kustomization != null) {
        skipped.accept(new KustomizePatchException(file, kustomization));
        continue;
      }
      files.add(file);
    }
    return files;
  }

  /**
   * The files a kustomization names as patches ({@code patches}, {@code patchesStrategicMerge},
   * {@code patchesJson6902}), resolved against its directory; none when it does not parse.
   */
  private static List<Path> kustomizePatches(Path kustomization) {
    return kustomizeEntries(
        kustomization, List.of("patches", "patchesStrategicMerge", "patchesJson6902"));
  }

  /**
   * A path resolved from a kustomization, written as the kustomization's own path is: relative to
   * the working directory when that one was given relative.
   */
  private static Path asGiven(Path resolved, Path kustomization) {
    return kustomization.isAbsolute()
        ? resolved
        : Path.of("").toAbsolutePath().relativize(resolved.toAbsolutePath());
  }

  /** Whether {@code file} is one of the paths given or lies in one of them. */
  private static boolean within(Path file, List<Path> given) {
    Path normalized = file.toAbsolutePath().normalize();
    return given.stream().anyMatch(p -> normalized.startsWith(p.toAbsolutePath().normalize()));
  }

  /**
   * The files a kustomization's list fields name, resolved against its directory: a name, or an
   * entry's {@code path}; none when it does not parse. A remote resource (a URL) is no file.
   */
  private static List<Path> kustomizeEntries(Path kustomization, List<String> listFields) {
    Map<?, ?> fields;
    try {
      fields = YAML.readValue(kustomization.toFile(), Map.class);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
    if (fields == null) {
      return List.of();
    }
    Path directory = kustomization.toAbsolutePath().getParent();
    List<Path> named = new ArrayList<>();
    for (String field : listFields) {
      if (!(fields.get(field) instanceof List<?> entries)) {
        continue;
      }
      for (Object entry : entries) {
        Object name = entry instanceof Map<?, ?> map ? map.get("path") : entry;
        // An inline patch is text of several lines, not a file's name.
        if (name instanceof String file
            && !file.isBlank()
            && !file.contains("\n")
            && !file.contains("://")) {
          named.add(directory.resolve(file).normalize());
        }
      }
    }
    return named;
  }

  /**
   * What a file that is no valid YAML is, when it is a template not yet rendered: a Helm chart's
   * ({@code {{ ... }}}) or an envsubst one ({@code ${NAME}}). Its parser error would only confuse.
   */
  private static Optional<String> unrenderedTemplate(String text) {
    if (text.contains("{{") && text.contains("}}")) {
      Optional<String> placeholder = placeholderOnly(text);
      if (placeholder.isPresent()) {
        return Optional.of(
            "a placeholder to fill in ({{ %s }}): put your value in its place first"
                .formatted(placeholder.get()));
      }
      return Optional.of(
          "an unrendered Helm template ({{ ... }}): render it with helm template first");
    }
    if (text.matches("(?s).*\\$\\{[A-Za-z_][A-Za-z0-9_]*}.*")) {
      return Optional.of(
          "an unrendered template (${...}): render it first (envsubst, or the tool it is made for)");
    }
    return Optional.empty();
  }

  private static final Pattern ACTION = Pattern.compile("\\{\\{(.*?)}}", Pattern.DOTALL);

  private static final Pattern PLACEHOLDER = Pattern.compile("[A-Z][A-Z0-9_]*");

  /**
   * The first of the {@code {{ NAME }}} placeholders a vendor's example asks its user to replace
   * (DigitalOcean's, Vultr's, Linode's: {@code {{ DO_ACCESS_TOKEN }}}), when they are the text's
   * only actions: a Helm template's begin with a dot, a variable, a function or a keyword.
   */
  private static Optional<String> placeholderOnly(String text) {
    Matcher action = ACTION.matcher(text);
    String first = null;
    while (action.find()) {
      String inner = action.group(1).trim();
      if (!PLACEHOLDER.matcher(inner).matches()) {
        return Optional.empty();
      }
      if (first == null) {
        first = inner;
      }
    }
    return Optional.ofNullable(first);
  }

  static List<ManifestDocument> readFile(Path file) throws ManifestException {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ManifestException(file, "cannot read: " + e.getMessage());
    }
    return read(text, file);
  }

  /**
   * The value at the parser's current token, with its aliases resolved as kubectl's YAML reader
   * resolves them: {@code *name} is the value anchored {@code &name} before it in the document, and
   * {@code <<: *name} (a merge key) adds that mapping's entries the mapping does not have itself.
   */
  private static Object value(
      YAMLParser parser,
      Map<String, Object> anchors,
      Map<Long, String> scalarAnchors,
      Path file,
      Map<Object, Integer> lines)
      throws IOException, ManifestException {
    if (parser.isCurrentAlias()) {
      String name = parser.getText();
      if (!anchors.containsKey(name)) {
        throw new ManifestException(
            file,
            parser.currentTokenLocation().getLineNr(),
            "the alias *%s names no anchor before it in its document".formatted(name));
      }
      return copy(anchors.get(name));
    }
    String anchor = parser.getObjectId();
    if (anchor == null) {
      anchor = scalarAnchors.get(parser.currentTokenLocation().getCharOffset());
    }
    Object value;
    if (parser.currentToken() == JsonToken.START_OBJECT) {
      Map<String, Object> map = new LinkedHashMap<>();
      lines.put(map, parser.currentTokenLocation().getLineNr());
      List<Object> merged = new ArrayList<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String key = parser.currentName();
        parser.nextToken();
        Object entry = value(parser, anchors, scalarAnchors, file, lines);
        if ("<<".equals(key)) {
          if (entry instanceof List<?> list) {
            merged.addAll(list);
          } else {
            merged.add(entry);
          }
        } else {
          map.put(key, entry);
        }
      }
      for (Object source : merged) {
        if (source instanceof Map<?, ?> entries) {
          entries.forEach((key, entry) -> map.putIfAbsent(String.valueOf(key), entry));
        }
      }
      value = map;
    } else if (parser.currentToken() == JsonToken.START_ARRAY) {
      List<Object> list = new ArrayList<>();
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        list.add(value(parser, anchors, scalarAnchors, file, lines));
      }
      value = list;
    } else {
      value = YAML.readValue(parser, Object.class);
    }
    if (anchor != null) {
      anchors.put(anchor, value);
    }
    return value;
  }

  /**
   * Where the YAML went wrong: SnakeYAML's problem mark (the offending character) where it gives
   * one, else the parser's location, which can be the line before it.
   */
  private static int line(JsonProcessingException e) {
    if (e.getCause() instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
      return marked.getProblemMark().getLine() + 1;
    }
    JsonLocation location = e.getLocation();
    return location == null ? 0 : location.getLineNr();
  }

  /** A token as a user names what they wrote: a list, a string. */
  private static String found(JsonToken token) {
    return switch (token) {
      case START_ARRAY -> "a list";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "true or false";
      default -> "something else";
    };
  }

  /**
   * The anchors of the text's scalars ({@code image: &image ...}), by where the scalar starts: the
   * YAML parser names the anchor of a mapping or sequence but not of a scalar. Empty for text that
   * does not parse: the parser reports that.
   */
  private static Map<Long, String> scalarAnchors(String text) {
    Map<Long, String> anchors = new HashMap<>();
    if (text.indexOf('&') < 0) {
      return anchors;
    }
    try {
      for (Event event : new Yaml(loaderOptions()).parse(new StringReader(text))) {
        if (event instanceof ScalarEvent scalar && scalar.getAnchor() != null) {
          anchors.put((long) scalar.getStartMark().getIndex(), scalar.getAnchor());
        }
      }
    } catch (YAMLException e) {
      // Not valid YAML: the parser reading the documents says where.
    }
    return anchors;
  }

  /** A copy of an anchored value, so that no two places of a document share one. */
  private static Object copy(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copied = new LinkedHashMap<>();
      map.forEach((key, entry) -> copied.put(String.valueOf(key), copy(entry)));
      return copied;
    }
    if (value instanceof List<?> list) {
      return new ArrayList<>(list.stream().map(Manifests::copy).toList());
    }
    return value;
  }

  /**
   * The documents of manifest text that is no file of its own (the lab's scenario), named {@code
   * file} in messages.
   */
  @SuppressWarnings("unchecked")
  public static List<ManifestDocument> read(String text, Path file) throws ManifestException {
    List<ManifestDocument> documents = new ArrayList<>();
    Map<Long, String> scalarAnchors = scalarAnchors(text);
    try (JsonParser parser = YAML.getFactory().createParser(text)) {
      while (true) {
        JsonToken token = parser.nextToken();
        if (token == null) {
          break;
        }
        int line = parser.currentTokenLocation().getLineNr();
        if (token == JsonToken.VALUE_NULL) {
          continue; // an empty document between separators
        }
        if (token != JsonToken.START_OBJECT) {
          throw new ManifestException(
              file, line, "expected a Kubernetes object (a mapping), found " + found(token));
        }
        // Anchors are the document's own: each document starts without any.
        Map<Object, Integer> lines = new IdentityHashMap<>();
        Map<String, Object> object =
            (Map<String, Object>)
                value((YAMLParser) parser, new HashMap<>(), scalarAnchors, file, lines);
        if ("List".equals(object.get("kind")) && object.get("items") instanceof List<?> items) {
          for (Object item : items) {
            if (item instanceof Map<?, ?> map) {
              documents.add(
                  new ManifestDocument(
                      file, lines.getOrDefault(map, line), (Map<String, Object>) map, text));
            }
          }
        } else {
          documents.add(new ManifestDocument(file, line, object, text));
        }
      }
    } catch (JsonProcessingException e) {
      int line = line(e);
      Optional<String> template = unrenderedTemplate(text);
      if (template.isPresent()) {
        throw new ManifestException(file, line, template.get());
      }
      throw new ManifestException(
          file, line, "not valid YAML: " + e.getOriginalMessage().replaceAll("\\s+", " ").trim());
    } catch (IOException e) {
      throw new ManifestException(file, "cannot read: " + e.getMessage());
    }
    return documents;
  }
}
