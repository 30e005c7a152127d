package dev.lifecycle.record;

import dev.lifecycle.internal.Ascii;
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
 * <p>{@code owner.clock} is the writer's {@link
 * dev.lifecycle.process.ProcessPlatform#identityClock() identity clock}: a reader on another clock
 * cannot compare the owner's start time or boot id, and reads the owner by pid only.
 *
 * <pre>
 * format=2
 * token=7c0e...        owner.pid=4242        owner.start=123456
 * owner.boot=0b3f...   owner.clock=linux-proc
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

  /** The file for {@code record}, whose owner's start time was measured on {@code clock}. */
  static byte[] write(SessionRecord record, String clock) {
    Properties p = new Properties();
    p.setProperty("format", Integer.toString(SessionRecord.FORMAT_VERSION));
    p.setProperty("token", record.token());
    p.setProperty("owner.pid", Long.toString(record.owner().pid()));
    p.setProperty("owner.start", Long.toString(record.owner().startTime()));
    p.setProperty("owner.boot", record.owner().bootId());
    p.setProperty("owner.clock", clock);
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

  private static final String END = "end=";

  /** The CRC-32 as 8 lower-case hex digits. */
  private static String crc(byte[] bytes, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, length);
    return Ascii.hex8((int) crc.getValue()); // CRC-32 is 32 bits
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
    String tail = new String(bytes, start, lastLine - start, StandardCharsets.US_ASCII);
    if (tail.length() != END.length() + 8
        || !tail.startsWith(END)
        || !Ascii.isLowerHex(tail, END.length())) {
      throw new Unreadable("truncated: no end marker", false);
    }
    if (!tail.substring(END.length()).equals(crc(bytes, start))) {
      throw new Unreadable("damaged: the end marker's checksum does not match", false);
    }
  }

  /**
   * The record in {@code bytes}, as a reader on {@code clock} knows it: an owner written under
   * another clock keeps only its pid.
   */
  static SessionRecord read(byte[] bytes, String clock) throws Unreadable {
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
      ProcessIdentity owner =
          new ProcessIdentity(
              number(p, "owner.pid"), number(p, "owner.start"), text(p, "owner.boot"));
      return new SessionRecord(
          text(p, "owner.clock").equals(clock) ? owner : ProcessIdentity.ofPid(owner.pid()),
          Endpoint.parse(text(p, "endpoint")),
          artifacts,
          text(p, "token"),
          instant(text(p, "created")));
    } catch (RuntimeException e) { // invalid values: bad paths, pids, instants, endpoints
      throw new Unreadable("invalid value: " + e.getMessage(), false);
    }
  }

  /**
   * {@link Instant#parse} of what {@link Instant#toString} writes. The common shape (years
   * 0000-9999, UTC, no fraction or 3, 6 or 9 digits) is read here: the JDK's parser first builds
   * its formatters, on a client's start; anything else goes to the JDK.
   */
  static Instant instant(String text) {
    int length = text.length();
    int fraction = length - 21; // digits between "yyyy-MM-ddTHH:mm:ss." and "Z"
    boolean shaped =
        (length == 20
                || (fraction == 3 || fraction == 6 || fraction == 9) && text.charAt(19) == '.')
            && text.charAt(4) == '-'
            && text.charAt(7) == '-'
            && text.charAt(10) == 'T'
            && text.charAt(13) == ':'
            && text.charAt(16) == ':'
            && text.charAt(length - 1) == 'Z';
    if (shaped) {
      int year = digits(text, 0, 4);
      int month = digits(text, 5, 7);
      int day = digits(text, 8, 10);
      int hour = digits(text, 11, 13);
      int minute = digits(text, 14, 16);
      int second = digits(text, 17, 19);
      int nanos = length == 20 ? 0 : digits(text, 20, length - 1) * NANOS_PER_DIGITS[fraction];
      if (year >= 0
          && month >= 1
          && month <= 12
          && day >= 1
          && day <= daysInMonth(year, month)
          && hour >= 0
          && hour <= 23
          && minute >= 0
          && minute <= 59
          && second >= 0
          && second <= 59
          && nanos >= 0) {
        return Instant.ofEpochSecond(
            epochDay(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second, nanos);
      }
    }
    return Instant.parse(text);
  }

  private static int daysInMonth(int year, int month) {
    if (month == 2) {
      boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
      return leap ? 29 : 28;
    }
    return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
  }

  /**
   * Days since 1970-01-01 of a proleptic Gregorian date, counted in 400-year eras of years that
   * start in March (so the leap day ends a year). By hand: {@code LocalDate} reaches {@code Year},
   * whose initializer builds a formatter on JDK 25.
   */
  static long epochDay(int year, int month, int day) {
    int marchYear = month <= 2 ? year - 1 : year;
    int era = Math.floorDiv(marchYear, 400);
    int yearOfEra = marchYear - era * 400; // 0-399
    int monthFromMarch = (month + 9) % 12; // March 0 ... February 11
    int dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1; // 0-365
    int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097L + dayOfEra - 719_468; // 1970-01-01 is day 719,468 of era 0
  }

  /** What one unit of a fraction with that many digits is in nanoseconds. */
  private static final int[] NANOS_PER_DIGITS = {0, 0, 0, 1_000_000, 0, 0, 1_000, 0, 0, 1};

  /** The number the ASCII digits in [from, to) spell, or -1 if one is not a digit. */
  private static int digits(String text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (!Ascii.isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
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
