package dev.lifecycle.examples.broker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The examples' JSON: one strictly configured Jackson {@link ObjectMapper}. Values read as plain
 * Java ({@code Map}, {@code List}, {@code String}, {@code Number}, {@code Boolean}, {@code null}).
 * Strict: trailing text, duplicate keys and nesting deeper than {@link #MAX_DEPTH} are errors.
 * Thread-safe.
 */
public final class ExampleJson {
  /** Nesting bound: a request is a flat object; a deeply nested one is hostile. */
  public static final int MAX_DEPTH = 32;

  private static final ObjectMapper MAPPER =
      new ObjectMapper(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private ExampleJson() {}

  /** Parses exactly one JSON value. */
  public static Object parse(String text) throws JsonProcessingException {
    return MAPPER.readValue(text, Object.class);
  }

  /** Writes {@code value} compactly. */
  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not writable as JSON: " + value, e);
    }
  }
}
