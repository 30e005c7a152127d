package dev.lifecycle.process;

import dev.lifecycle.internal.Unguessable;
import java.util.Optional;

/**
 * Tree cookies that name their owner: {@code lc1.<owner pid>.<owner start>.<boot id>.<random>}, the
 * boot id as 22 base64url characters (its 16 bytes), so that whoever finds a carrier after the
 * owner is gone can judge the owner on proof. The format fits the cookie grammar (8-64 of
 * [A-Za-z0-9._-]); an owner that cannot be written in it gets a plain random cookie, which names no
 * owner. Stateless, thread-safe.
 */
final class TreeCookie {
  static final String PREFIX = "lc1.";
  private static final int MAX = 64;
  private static final int RANDOM_CHARS = 10;
  private static final char[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();

  private TreeCookie() {}

  static String of(ProcessIdentity owner) {
    byte[] boot = uuidBytes(owner.bootId());
    if (owner.pid() <= 0 || owner.startTime() < 0 || boot == null) {
      return SpawnOptions.newCookie();
    }
    StringBuilder out = new StringBuilder(MAX);
    out.append(PREFIX).append(owner.pid()).append('.').append(owner.startTime()).append('.');
    base64(boot, out);
    out.append('.');
    long random = Unguessable.nextLong();
    for (int i = 0; i < RANDOM_CHARS; i++) {
      out.append(ALPHABET[(int) (random & 63)]);
      random >>>= 6;
    }
    return out.length() <= MAX ? out.toString() : SpawnOptions.newCookie();
  }

  /** The owner {@code cookie} names, or empty for a cookie of another format. */
  static Optional<ProcessIdentity> owner(String cookie) {
    if (cookie == null || !cookie.startsWith(PREFIX)) {
      return Optional.empty();
    }
    int pidEnd = cookie.indexOf('.', PREFIX.length());
    int startEnd = pidEnd < 0 ? -1 : cookie.indexOf('.', pidEnd + 1);
    int bootEnd = startEnd < 0 ? -1 : cookie.indexOf('.', startEnd + 1);
    if (bootEnd != startEnd + 23 || bootEnd == cookie.length() - 1) {
      return Optional.empty();
    }
    try {
      long pid = Long.parseLong(cookie, PREFIX.length(), pidEnd, 10);
      long start = Long.parseLong(cookie, pidEnd + 1, startEnd, 10);
      String boot = uuidText(cookie, startEnd + 1);
      if (pid <= 0 || start < 0 || boot == null) {
        return Optional.empty();
      }
      return Optional.of(new ProcessIdentity(pid, start, boot));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The 16 bytes of a UUID in text form, or null when {@code text} is not one. */
  private static byte[] uuidBytes(String text) {
    if (text == null || text.length() != 36) {
      return null;
    }
    byte[] out = new byte[16];
    int n = 0;
    for (int i = 0; i < 36; i++) {
      char c = text.charAt(i);
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (c != '-') {
          return null;
        }
        continue;
      }
      int digit = Character.digit(c, 16);
      if (digit < 0 || (c >= 'A' && c <= 'F')) {
        return null; // the kernel writes lower case: another spelling would not compare equal
      }
      out[n / 2] = (byte) ((out[n / 2] << 4) | digit);
      n++;
    }
    return out;
  }

  private static void base64(byte[] bytes, StringBuilder out) {
    int bits = 0;
    int buffer = 0;
    for (byte b : bytes) {
      buffer = (buffer << 8) | (b & 0xff);
      bits += 8;
      while (bits >= 6) {
        bits -= 6;
        out.append(ALPHABET[(buffer >>> bits) & 63]);
      }
    }
    if (bits > 0) {
      out.append(ALPHABET[(buffer << (6 - bits)) & 63]);
    }
  }

  /** The 22 base64url characters at {@code from} as a lower-case UUID, or null. */
  private static String uuidText(String text, int from) {
    byte[] bytes = new byte[16];
    int bits = 0;
    int buffer = 0;
    int n = 0;
    for (int i = from; i < from + 22; i++) {
      int v = value(text.charAt(i));
      if (v < 0) {
        return null;
      }
      buffer = (buffer << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[n++] = (byte) (buffer >>> bits);
      }
    }
    if ((buffer & ((1 << bits) - 1)) != 0) {
      return null; // not the one spelling this encoder writes
    }
    StringBuilder out = new StringBuilder(36);
    for (int i = 0; i < 16; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) {
        out.append('-');
      }
      out.append(Character.forDigit((bytes[i] >> 4) & 15, 16))
          .append(Character.forDigit(bytes[i] & 15, 16));
    }
    return out.toString();
  }

  private static int value(char c) {
    if (c >= 'A' && c <= 'Z') {
      return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
      return c - '0' + 52;
    }
    return c == '-' ? 62 : c == '_' ? 63 : -1;
  }
}
