package dev.lifecycle.examples.broker;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny, strict JSON (RFC 8259) reader and writer for the few shapes the example protocol needs,
 * so the examples depend on nothing but the JDK and the library.
 *
 * <p>Values map to {@code Map<String, Object>} (insertion-ordered, duplicate keys rejected), {@code
 * List<Object>}, {@code String}, {@code BigDecimal}, {@code Boolean} and {@link #NULL}. The reader
 * rejects trailing text, leading zeros, unescaped control characters, bad escapes and nesting
 * deeper than {@link #MAX_DEPTH}. (Unpaired surrogates in {@code \\u} escapes pass through, as Java
 * strings allow them.)
 */
public final class Json {
  /** JSON {@code null}: distinct from "absent" when looking a key up in a map. */
  public static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  /** Nesting bound: a request is a flat object; a deeply nested one is hostile. */
  public static final int MAX_DEPTH = 32;

  /** Thrown for text that is not exactly one JSON value. */
  public static final class ParseException extends Exception {
    private static final long serialVersionUID = 1L;

    ParseException(String message, int at) {
      super(message + " at offset " + at);
    }
  }

  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  /** Parses exactly one JSON value, surrounded by optional whitespace. */
  public static Object parse(String text) throws ParseException {
    Json reader = new Json(text);
    reader.skipSpace();
    Object value = reader.value(0);
    reader.skipSpace();
    if (reader.at != text.length()) {
      throw new ParseException("trailing text", reader.at);
    }
    return value;
  }

  private Object value(int depth) throws ParseException {
    if (depth > MAX_DEPTH) {
      throw new ParseException("nested deeper than " + MAX_DEPTH, at);
    }
    if (at >= text.length()) {
      throw new ParseException("unexpected end", at);
    }
    char c = text.charAt(at);
    switch (c) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", NULL);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw new ParseException("unexpected character '" + c + "'", at);
    }
  }

  private Map<String, Object> object(int depth) throws ParseException {
    Map<String, Object> map = new LinkedHashMap<>();
    at++; // {
    skipSpace();
    if (peek() == '}') {
      at++;
      return map;
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw new ParseException("expected a string key", at);
      }
      int keyAt = at;
      String key = string();
      skipSpace();
      expect(':');
      skipSpace();
      if (map.put(key, value(depth + 1)) != null) {
        throw new ParseException("duplicate key \"" + key + "\"", keyAt);
      }
      skipSpace();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw new ParseException("expected ',' or '}'", at - 1);
      }
    }
  }

  private List<Object> array(int depth) throws ParseException {
    List<Object> list = new ArrayList<>();
    at++; // [
    skipSpace();
    if (peek() == ']') {
      at++;
      return list;
    }
    while (true) {
      skipSpace();
      list.add(value(depth + 1));
      skipSpace();
      char c = next();
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw new ParseException("expected ',' or ']'", at - 1);
      }
    }
  }

  private String string() throws ParseException {
    at++; // opening quote
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        throw new ParseException("unescaped control character in a string", at - 1);
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw new ParseException("truncated \\u escape", at);
          }
          int code = 0;
          for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(at++), 16);
            if (digit < 0) {
              throw new ParseException("bad \\u escape", at - 1);
            }
            code = code * 16 + digit;
          }
          out.append((char) code);
        }
        default -> throw new ParseException("bad escape '\\" + e + "'", at - 1);
      }
    }
  }

  private BigDecimal number() throws ParseException {
    int start = at;
    if (peek() == '-') {
      at++;
    }
    if (peek() == '0') {
      at++;
    } else if (isDigit(peek())) {
      while (isDigit(peek())) {
        at++;
      }
    } else {
      throw new ParseException("bad number", start);
    }
    if (peek() == '.') {
      at++;
      digits(start);
    }
    if (peek() == 'e' || peek() == 'E') {
      at++;
      if (peek() == '+' || peek() == '-') {
        at++;
      }
      digits(start);
    }
    return new BigDecimal(text.substring(start, at));
  }

  private void digits(int start) throws ParseException {
    if (!isDigit(peek())) {
      throw new ParseException("bad number", start);
    }
    while (isDigit(peek())) {
      at++;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private Object literal(String word, Object value) throws ParseException {
    if (!text.startsWith(word, at)) {
      throw new ParseException("unexpected literal", at);
    }
    at += word.length();
    return value;
  }

  private void skipSpace() {
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      at++;
    }
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private char next() throws ParseException {
    if (at >= text.length()) {
      throw new ParseException("unexpected end", at);
    }
    return text.charAt(at++);
  }

  private void expect(char c) throws ParseException {
    if (next() != c) {
      throw new ParseException("expected '" + c + "'", at - 1);
    }
  }

  /** Writes {@code value} compactly on one line (strings escaped, so no raw line breaks). */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString();
  }

  private static void write(Object value, StringBuilder out) {
    if (value == null || value == NULL) {
      out.append("null");
    } else if (value instanceof String s) {
      quote(s, out);
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof BigDecimal d) {
      out.append(d.toString());
    } else if (value instanceof Number n) {
      out.append(new BigDecimal(n.toString()));
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.append(first ? "" : ",");
        first = false;
        quote(String.valueOf(e.getKey()), out);
        out.append(':');
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        out.append(i == 0 ? "" : ",");
        write(list.get(i), out);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("not a JSON value: " + value.getClass());
    }
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /** An ordered map literal for replies: {@code obj("ok", true, "result", x)}. */
  public static Map<String, Object> obj(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return Collections.unmodifiableMap(map);
  }
}
