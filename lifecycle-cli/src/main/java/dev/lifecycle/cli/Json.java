package dev.lifecycle.cli;

/** A small JSON writer: objects, arrays, strings, numbers and booleans, no pretty-printing. */
final class Json {
  private final StringBuilder out = new StringBuilder();
  private boolean first = true;

  Json begin() {
    comma();
    return open('{');
  }

  Json end() {
    out.append('}');
    return written();
  }

  Json beginArray(String name) {
    key(name);
    return open('[');
  }

  Json endArray() {
    out.append(']');
    return written();
  }

  Json field(String name, String value) {
    key(name);
    string(value);
    return written();
  }

  Json field(String name, long value) {
    key(name);
    out.append(value);
    return written();
  }

  Json field(String name, double value) {
    key(name);
    out.append(Double.isFinite(value) ? Double.toString(value) : "null");
    return written();
  }

  Json field(String name, boolean value) {
    key(name);
    out.append(value);
    return written();
  }

  Json value(String value) {
    comma();
    string(value);
    return written();
  }

  Json key(String name) {
    comma();
    string(name);
    out.append(':');
    first = true; // the value follows without a comma
    return this;
  }

  /** An object or array starts: its first member needs no comma. */
  private Json open(char bracket) {
    out.append(bracket);
    first = true;
    return this;
  }

  /** A value ends (an object or array too): what follows it needs a comma. */
  private Json written() {
    first = false;
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
