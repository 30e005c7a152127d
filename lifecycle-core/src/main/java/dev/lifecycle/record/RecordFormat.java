package dev.lifecycle.record;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessIdentity;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The record file: UTF-8 {@link Properties}, parsed by the JDK. {@code format} comes first in
 * meaning: a reader that finds a newer format reports it instead of guessing. Unknown keys are
 * ignored, so a format can grow optional keys.
 *
 * <p>Format 2 ends with the line {@code end=<crc32>}, the CRC-32 (8 hex digits) of every byte
 * before that line: a file cut anywhere (a crashed writer on a file system without atomic rename, a
 * copy) lacks the marker or fails the sum, so a record with a shortened token is never accepted.
 * Format 1 (no marker) is still read.
 *
 * <pre>
 * format=2
 * token=7c0e...        owner.pid=4242        owner.start=123456
 * owner.boot=0b3f...   owner.clock=posix-linux
 * endpoint=unix:/run/user/1000/app/broker.sock
 * created=2025-01-01T12:00:00Z
 * artifact.socket=/...   artifact.pid-file=/...   artifact.log-file=/...   artifact.directory=/...
 * end=1a2b3c4d
 * </pre>
 */
final class RecordFormat {
  private RecordFormat() {}

  /** Why bytes are not a record this library can use. */
  static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean newerFormat;

    Unreadable(String message, boolean newerFormat) {
      super(message);
      this.newerFormat = newerFormat;
    }

    /** A newer library wrote it: not corrupt, just not ours to interpret. */
    boolean newerFormat() {
      return newerFormat;
    }
  }

  static byte[] write(SessionRecord record) {
    Properties p = new Properties();
    p.setProperty("format", Integer.toString(SessionRecord.FORMAT_VERSION));
    p.setProperty("token", record.token());
    p.setProperty("owner.pid", Long.toString(record.owner().pid()));
    p.setProperty("owner.start", Long.toString(record.owner().startTime()));
    p.setProperty("owner.boot", record.owner().bootId());
    p.setProperty("owner.clock", record.identityClock());
    p.setProperty("endpoint", record.endpoint().toString());
    p.setProperty("created", record.created().toString());
    record.artifacts().forEach((kind, path) -> p.setProperty(key(kind), path.toString()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      p.store(new OutputStreamWriter(out, StandardCharsets.UTF_8), "lifecycle session");
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory streams do not fail
    }
    byte[] body = out.toByteArray();
    byte[] end = ("end=" + crc(body, body.length) + "\n").getBytes(StandardCharsets.US_ASCII);
    byte[] all = Arrays.copyOf(body, body.length + end.length);
    System.arraycopy(end, 0, all, body.length, end.length);
    return all;
  }

  /** The earliest format this library still reads (format 1 has no end marker). */
  static final int OLDEST_FORMAT = 1;

  private static final Pattern END = Pattern.compile("end=([0-9a-f]{8})\n");

  private static String crc(byte[] bytes, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, length);
    return String.format("%08x", crc.getValue());
  }

  /** Checks the end marker of a format-2 record: the last line, over every byte before it. */
  private static void checkEnd(byte[] bytes) throws Unreadable {
    int lastLine = bytes.length - 1; // index of the final newline
    if (lastLine < 0 || bytes[lastLine] != '\n') {
      throw new Unreadable("truncated: the record does not end with a line break", false);
    }
    int start = lastLine;
    while (start > 0 && bytes[start - 1] != '\n') {
      start--;
    }
    String tail = new String(bytes, start, bytes.length - start, StandardCharsets.US_ASCII);
    Matcher m = END.matcher(tail);
    if (!m.matches()) {
      throw new Unreadable("truncated: no end marker", false);
    }
    if (!m.group(1).equals(crc(bytes, start))) {
      throw new Unreadable("damaged: the end marker's checksum does not match", false);
    }
  }

  static SessionRecord read(byte[] bytes) throws Unreadable {
    Properties p = new Properties();
    try {
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
      p.load(new StringReader(text));
    } catch (CharacterCodingException e) {
      throw new Unreadable("not UTF-8 text", false);
    } catch (IOException | IllegalArgumentException e) {
      throw new Unreadable("not a properties file: " + e.getMessage(), false);
    }
    long format = number(p, "format");
    if (format > SessionRecord.FORMAT_VERSION) {
      throw new Unreadable(
          "format "
              + format
              + " was written by a newer version of lifecycle; this one reads format "
              + SessionRecord.FORMAT_VERSION
              + " (upgrade the reader, or let the owner clear it)",
          true);
    }
    if (format < OLDEST_FORMAT) {
      throw new Unreadable("unknown format " + format, false);
    }
    if (format >= 2) {
      checkEnd(bytes);
    }
    Map<ArtifactKind, Path> artifacts = new EnumMap<>(ArtifactKind.class);
    for (ArtifactKind kind : ArtifactKind.values()) {
      String path = p.getProperty(key(kind));
      if (path != null) {
        artifacts.put(kind, Path.of(path));
      }
    }
    try {
      return new SessionRecord(
          new ProcessIdentity(
              number(p, "owner.pid"), number(p, "owner.start"), text(p, "owner.boot")),
          text(p, "owner.clock"),
          Endpoint.parse(text(p, "endpoint")),
          artifacts,
          text(p, "token"),
          Instant.parse(text(p, "created")));
    } catch (RuntimeException e) { // invalid values: bad paths, pids, instants, endpoints
      throw new Unreadable("invalid value: " + e.getMessage(), false);
    }
  }

  private static String key(ArtifactKind kind) {
    return "artifact." + kind.key();
  }

  private static String text(Properties p, String key) throws Unreadable {
    String value = p.getProperty(key);
    if (value == null) {
      throw new Unreadable("missing " + key, false);
    }
    return value;
  }

  private static long number(Properties p, String key) throws Unreadable {
    String value = text(p, key);
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new Unreadable(key + " is not a number: '" + value + "'", false);
    }
  }
}
