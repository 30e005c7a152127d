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
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;

/**
 * The record file: UTF-8 {@link Properties}, parsed by the JDK. {@code format} comes first in
 * meaning: a reader that finds a newer format reports it instead of guessing. Unknown keys are
 * ignored, so format 1 can grow optional keys.
 *
 * <pre>
 * format=1
 * token=7c0e...        owner.pid=4242        owner.start=123456
 * owner.boot=0b3f...   owner.clock=posix-linux
 * endpoint=unix:/run/user/1000/app/broker.sock
 * created=2025-01-01T12:00:00Z
 * artifact.socket=/...   artifact.pid-file=/...   artifact.log-file=/...   artifact.directory=/...
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
    return out.toByteArray();
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
    if (format != SessionRecord.FORMAT_VERSION) {
      throw new Unreadable("unknown format " + format, false);
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
