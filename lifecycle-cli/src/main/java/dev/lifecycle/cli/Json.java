package dev.lifecycle.cli;

/** A small JSON writer: objects, arrays, strings, numbers and booleans, no pretty-printing. */
final class Json {
  private final StringBuilder out = new StringBuilder();
  private boolean first = true;

  Json begin() {
    comma();
    out.append('{');
    first = true;
    return this;
  }

  Json end() {
    out.append('}');
    first = false;
    return this;
  }

  Json beginArray(String name) {
    key(name);
    out.append('[');
    first = true;
    return this;
  }

  Json endArray() {
    out.append(']');
    first = false;
    return this;
  }

  Json field(String name, String value) {
    key(name);
    string(value);
    first = false;
    return this;
  }

  Json field(String name, long value) {
    key(name);
    out.append(value);
    first = false;
    return this;
  }

  Json field(String name, double value) {
    key(name);
    out.append(Double.isFinite(value) ? Double.toString(value) : "null");
    first = false;
    return this;
  }

  Json field(String name, boolean value) {
    key(name);
    out.append(value);
    first = false;
    return this;
  }

  Json value(String value) {
    comma();
    string(value);
    first = false;
    return this;
  }

  Json key(String name) {
    comma();
    string(name);
    out.append(':');
    first = true; // the value follows without a comma
    return this;
  }

  private void comma() {
    if (!first) {
      out.append(',');
    }
    first = true;
  }

  private void string(String s) {
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
            out.append("\\u00")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
