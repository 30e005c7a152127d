package dev.lifecycle.examples.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.lifecycle.examples.broker.ExampleJson;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * A broker reply as the CLI prints it: whether it says {@code "ok":true}, and the JSON text of its
 * {@code result} (or {@code error}), written compactly. Read with Jackson's streaming parser, not
 * its object mapper: a one-shot CLI pays for every class it loads, and building an {@code
 * ObjectMapper} costs a cold JVM tens of milliseconds. As strict as {@link ExampleJson}: duplicate
 * keys, trailing text and nesting deeper than {@link ExampleJson#MAX_DEPTH} are errors. A reply
 * that is not an object is all error.
 */
record Reply(boolean ok, String payload) {
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNestingDepth(ExampleJson.MAX_DEPTH).build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  static Reply parse(String text) throws JsonProcessingException {
    try (JsonParser parser = JSON.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new JsonParseException(parser, "empty reply");
      }
      Reply reply;
      if (first != JsonToken.START_OBJECT) {
        reply = new Reply(false, copy(parser));
      } else {
        boolean ok = false;
        String result = "null";
        String error = "null";
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          parser.nextToken();
          switch (name) {
            case "ok" -> ok = parser.currentToken() == JsonToken.VALUE_TRUE;
            case "result" -> result = copy(parser);
            case "error" -> error = copy(parser);
            default -> parser.skipChildren();
          }
        }
        reply = ok ? new Reply(true, result) : new Reply(false, error);
      }
      if (parser.nextToken() != null) {
        throw new JsonParseException(parser, "trailing text after the reply");
      }
      return reply;
    } catch (JsonProcessingException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String source has no I/O to fail
    }
  }

  /** The current value (and its children) as compact JSON text. */
  private static String copy(JsonParser parser) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = JSON.createGenerator(out)) {
      generator.copyCurrentStructure(parser);
    }
    return out.toString();
  }
}
