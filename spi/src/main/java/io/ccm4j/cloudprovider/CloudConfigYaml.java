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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads a provider's {@code --cloud-config} written in YAML into a record or class, strictly
 * (unknown fields are errors). Every error is a {@link CloudConfigException} naming the source, the
 * line and the field, never a parser's stack trace.
 */
public final class CloudConfigYaml {

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private CloudConfigYaml() {}

  /** The file's content, as {@link #parse}; the file's path is the source in messages. */
  public static <T> T read(Path file, Class<T> type) throws CloudConfigException {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new CloudConfigException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString(), type);
  }

  /**
   * @param source names the text in messages (a file name)
   * @return null when the text is blank: the provider's defaults apply
   */
  public static <T> T parse(String text, String source, Class<T> type) throws CloudConfigException {
    if (text.isBlank()) {
      return null;
    }
    // A parser of our own, not closed by Jackson on an error, still stands on the offending value.
    try (JsonParser parser = YAML.createParser(text)) {
      try {
        return YAML.readValue(parser, type);
      } catch (UnrecognizedPropertyException e) {
        throw e;
      } catch (MismatchedInputException e) {
        // Jackson's own words name Java types ("Cannot deserialize value of type
        // java.util.ArrayList<...> from Integer value"); a user wrote YAML and is told in YAML's.
        throw new CloudConfigException(
            "%s: line %d: field \"%s\": expected %s, got %s"
                .formatted(
                    source,
                    line(e.getLocation()),
                    path(e),
                    expected(e.getTargetType()),
                    found(parser)));
      }
    } catch (UnrecognizedPropertyException e) {
      throw new CloudConfigException(
          "%s: line %d: unknown field \"%s\" (known: %s)"
              .formatted(
                  source,
                  line(e.getLocation()),
                  path(e),
                  e.getKnownPropertyIds().stream()
                      .map(Object::toString)
                      .sorted()
                      .collect(Collectors.joining(", "))));
    } catch (JsonMappingException e) {
      throw new CloudConfigException(
          "%s: line %d: field \"%s\": %s"
              .formatted(source, line(e.getLocation()), path(e), e.getOriginalMessage()));
    } catch (JsonProcessingException e) {
      throw new CloudConfigException(
          "%s: line %d: not valid YAML: %s"
              .formatted(source, line(e.getLocation()), e.getOriginalMessage()));
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

  private static int line(JsonLocation location) {
    return location == null ? 0 : location.getLineNr();
  }

  /** {@code healthCheck.interval}, {@code instances[2].zone}. */
  private static String path(JsonMappingException e) {
    return e.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining("."))
        .replace(".[", "[");
  }
}
