package dev.lifecycle.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Parses JSON back (objects, arrays, strings, numbers, booleans, null) to check the output. */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text.trim());
    Object v = p.value();
    if (p.i != p.s.length()) {
      throw new IllegalArgumentException("trailing text at " + p.i + ": " + text);
    }
    return v;
  }

  /** Reads the comma-separated elements after an opening bracket, through {@code close}. */
  private void elements(char close, Runnable element) {
    i++;
    if (s.charAt(i) == close) {
      i++;
      return;
    }
    while (true) {
      element.run();
      if (s.charAt(i) == ',') {
        i++;
      } else {
        expect(close);
        return;
      }
    }
  }

  private Object value() {
    char c = s.charAt(i);
    if (c == '{') {
      Map<String, Object> m = new LinkedHashMap<>();
      elements(
          '}',
          () -> {
            String k = string();
            expect(':');
            m.put(k, value());
          });
      return m;
    }
    if (c == '[') {
      List<Object> l = new ArrayList<>();
      elements(']', () -> l.add(value()));
      return l;
    }
    if (c == '"') {
      return string();
    }
    for (String word : new String[] {"true", "false", "null"}) {
      if (s.startsWith(word, i)) {
        i += word.length();
        return word.equals("null") ? null : Boolean.valueOf(word);
      }
    }
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw new IllegalArgumentException("unexpected " + c + " at " + i);
    }
    return Double.valueOf(s.substring(start, i));
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        throw new IllegalArgumentException("raw control character at " + i);
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> out.append(e);
        }
      } else {
        out.append(c);
      }
    }
  }

  private void expect(char c) {
    if (s.charAt(i) != c) {
      throw new IllegalArgumentException("expected " + c + " at " + i + " in " + s);
    }
    i++;
  }
}
