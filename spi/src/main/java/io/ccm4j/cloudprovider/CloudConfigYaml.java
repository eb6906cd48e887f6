package io.ccm4j.cloudprovider;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    try {
      return YAML.readValue(text, type);
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
    }
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
