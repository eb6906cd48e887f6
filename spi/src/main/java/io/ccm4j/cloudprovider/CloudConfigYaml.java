package io.ccm4j.cloudprovider;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads a provider's {@code --cloud-config} written in YAML into a record or class, strictly
 * (unknown fields are errors). Every error is a {@link CloudConfigException} naming the source, the
 * line and the field, never a parser's stack trace.
 */
public final class CloudConfigYaml {

  // A key given twice is an error, as in Kubernetes' own YAML (sigs.k8s.io/yaml), not the last
  // one silently winning.
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION))
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private CloudConfigYaml() {}

  /**
   * The most a cloud config may hold: it is a few kilobytes; a file larger than this is the wrong
   * one ({@code /dev/zero}, an image), refused before it fills the heap or the YAML parser's time.
   */
  public static final int MAX_BYTES = 1 << 20;

  /** The file's content, as {@link #parse}; the file's path is the source in messages. */
  public static <T> T read(Path file, Class<T> type) throws CloudConfigException {
    return parse(readText(file), file.toString(), type);
  }

  /** A cloud config's text, at most {@link #MAX_BYTES}. */
  public static String readText(Path file) throws CloudConfigException {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (IOException e) {
      throw new CloudConfigException("cannot read " + file + ": " + e.getMessage(), e);
    }
    if (bytes.length > MAX_BYTES) {
      throw new CloudConfigException(
          "%s: larger than %d KiB: a cloud config is a few kilobytes (is it the right file?)"
              .formatted(file, MAX_BYTES / 1024));
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * @param source names the text in messages (a file name)
   * @return null when the text is blank: the provider's defaults apply
   */
  public static <T> T parse(String text, String source, Class<T> type) throws CloudConfigException {
    if (text.isBlank()) {
      return null;
    }
    // A parser of our own, not closed by Jackson on an error, still stands on the offending key or
    // value: its token's line is the one to name (the exception's location can be the end of the
    // enclosing mapping).
    try (JsonParser parser = YAML.createParser(text)) {
      try {
        return YAML.readValue(parser, type);
      } catch (UnrecognizedPropertyException e) {
        throw new CloudConfigException(
            "%s: line %d: unknown field \"%s\" (known: %s)"
                .formatted(
                    source,
                    line(text, parser, e),
                    path(e),
                    e.getKnownPropertyIds().stream()
                        .map(Object::toString)
                        .sorted()
                        .collect(Collectors.joining(", "))));
      } catch (MismatchedInputException e) {
        // Jackson's own words name Java types ("Cannot deserialize value of type
        // java.util.ArrayList<...> from Integer value"); a user wrote YAML and is told in YAML's.
        throw new CloudConfigException(
            "%s: line %d: field \"%s\": expected %s, got %s"
                .formatted(
                    source,
                    line(text, parser, e),
                    path(e),
                    expected(e.getTargetType()),
                    found(parser)));
      } catch (JsonMappingException e) {
        if (e.getCause() instanceof JsonProcessingException parse
            && parse.getCause() instanceof MarkedYAMLException) {
          // The text ends or breaks inside a field's value: no YAML, whatever field it was in.
          throw new CloudConfigException(
              "%s: line %d: not valid YAML: %s"
                  .formatted(source, problemLine(parse), syntaxProblem(parse)));
        }
        throw new CloudConfigException(
            "%s: line %d: field \"%s\": %s"
                .formatted(source, line(text, parser, e), path(e), e.getOriginalMessage()));
      }
    } catch (JsonProcessingException e) {
      throw new CloudConfigException(
          "%s: line %d: not valid YAML: %s".formatted(source, problemLine(e), syntaxProblem(e)));
    } catch (IOException e) {
      throw new CloudConfigException("%s: cannot read: %s".formatted(source, e.getMessage()), e);
    }
  }

  /** What a field of this Java type is written as in YAML. */
  static String expected(Class<?> type) {
    if (type == null) {
      return "another kind of value";
    }
    if (type.isArray() || Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "a map";
    }
    if (type == String.class || type == Path.class) {
      return "a string";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == int.class
        || type == Integer.class
        || type == long.class
        || type == Long.class
        || type == short.class
        || type == Short.class) {
      return "a whole number";
    }
    if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      return "a number";
    }
    if (type.isEnum()) {
      return "one of "
          + Arrays.stream(type.getEnumConstants())
              .map(Object::toString)
              .collect(Collectors.joining(", "));
    }
    return "a map of fields";
  }

  /** What the YAML held where the mismatch is: a number, a string, a list, ... and its text. */
  private static String found(JsonParser parser) {
    JsonToken token = parser.currentToken();
    if (token == null) {
      return "nothing";
    }
    String text;
    try {
      text = token.isScalarValue() ? parser.getText() : null;
    } catch (IOException unreadable) {
      text = null;
    }
    String kind =
        switch (token) {
          case START_ARRAY, END_ARRAY -> "a list";
          case START_OBJECT, END_OBJECT, FIELD_NAME -> "a map";
          case VALUE_STRING -> "a string";
          case VALUE_NUMBER_INT -> "a whole number";
          case VALUE_NUMBER_FLOAT -> "a number";
          case VALUE_TRUE, VALUE_FALSE -> "a boolean";
          case VALUE_NULL -> "null";
          default -> "another kind of value";
        };
    return text == null || token == JsonToken.VALUE_NULL ? kind : kind + " (" + text + ")";
  }

  /**
   * The line of the field the error names, found by its path in the text: Jackson reads a record's
   * fields before it creates it, so its location, and the parser's, can be the end of the mapping.
   */
  private static int line(String text, JsonParser parser, JsonMappingException e) {
    try (JsonParser again = YAML.createParser(text)) {
      again.nextToken();
      int found = lineOf(again, e.getPath(), 0);
      if (found > 0) {
        return found;
      }
    } catch (IOException unreadable) {
      // The parser reading the config said what is wrong with it.
    }
    JsonLocation token = parser.currentTokenLocation();
    return token == null ? 0 : token.getLineNr();
  }

  /** The line of the value at {@code path} from {@code depth} on, the parser at its start; or 0. */
  private static int lineOf(JsonParser parser, List<JsonMappingException.Reference> path, int depth)
      throws IOException {
    if (depth == path.size()) {
      return parser.currentTokenLocation().getLineNr();
    }
    JsonMappingException.Reference step = path.get(depth);
    if (parser.currentToken() == JsonToken.START_OBJECT && step.getFieldName() != null) {
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        int keyLine = parser.currentTokenLocation().getLineNr();
        parser.nextToken();
        if (name.equals(step.getFieldName())) {
          // The key's own line for the field's name (an unknown field, the last step).
          return depth == path.size() - 1 ? keyLine : lineOf(parser, path, depth + 1);
        }
        parser.skipChildren();
      }
    } else if (parser.currentToken() == JsonToken.START_ARRAY && step.getIndex() >= 0) {
      int index = 0;
      while (parser.nextToken() != JsonToken.END_ARRAY && parser.currentToken() != null) {
        if (index++ == step.getIndex()) {
          return lineOf(parser, path, depth + 1);
        }
        parser.skipChildren();
      }
    }
    return 0;
  }

  /**
   * What is wrong with a YAML text, in one line, when Jackson or SnakeYAML could not read it:
   * {@code line 2: not valid YAML: expected the node content, but found '<stream end>' (while
   * parsing a flow node)}, or {@code field "clusters": expected a list}. SnakeYAML's own message
   * spans lines (it quotes the text with a caret under the problem) and Jackson's names Java types.
   * Empty when the failure is neither (a file that cannot be read).
   */
  public static Optional<String> problem(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof MismatchedInputException mismatch && !mismatch.getPath().isEmpty()) {
        return Optional.of(
            "field \"%s\": expected %s"
                .formatted(path(mismatch), expected(mismatch.getTargetType())));
      }
      if (cause instanceof JsonProcessingException parse
          && parse.getCause() instanceof MarkedYAMLException) {
        return Optional.of(
            "line %d: not valid YAML: %s".formatted(problemLine(parse), syntaxProblem(parse)));
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return Optional.empty();
  }

  /** SnakeYAML's problem and what it was parsing, without the lines of text it quotes. */
  private static String syntaxProblem(JsonProcessingException e) {
    if (e.getCause() instanceof MarkedYAMLException marked && marked.getProblem() != null) {
      return syntaxProblem(marked);
    }
    return e.getOriginalMessage();
  }

  private static String syntaxProblem(MarkedYAMLException marked) {
    return marked.getContext() == null
        ? marked.getProblem()
        : marked.getProblem() + " (" + marked.getContext() + ")";
  }

  /** Where SnakeYAML found the text not to be YAML: its problem's mark, else Jackson's location. */
  private static int problemLine(JsonProcessingException e) {
    if (e.getCause() instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
      return marked.getProblemMark().getLine() + 1;
    }
    return e.getLocation() == null ? 0 : e.getLocation().getLineNr();
  }

  /** {@code healthCheck.interval}, {@code instances[2].zone}. */
  private static String path(JsonMappingException e) {
    return e.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining("."))
        .replace(".[", "[");
  }
}
