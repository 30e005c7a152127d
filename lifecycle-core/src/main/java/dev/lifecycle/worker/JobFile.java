package dev.lifecycle.worker;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lifecycle.internal.AtomicFile;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.time.Limit;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Properties;

/**
 * The job file of a {@link Worker}: a versioned {@link Properties} file, replaced atomically on
 * every change (temp file in the same directory, fsync, rename, fsync of the directory), so a
 * reader sees the old record or the new one, never a torn one, and a crash never loses a terminal
 * status that was reported as written. Thread-safe (static methods only).
 *
 * <p>Format version {@value #VERSION}; keys: {@code format}, {@code version}, {@code job}, {@code
 * status}, {@code owner.pid}, {@code owner.start}, {@code owner.boot}, {@code started}, {@code
 * ended} (ISO-8601 instants, wall clock), {@code ceiling} (ISO-8601 duration, {@code 0} when
 * disabled), {@code reason}. Readers reject newer versions rather than guess.
 */
public final class JobFile {
  /** The format version this class writes and the newest it reads. */
  public static final int VERSION = 1;

  private static final String FORMAT = "lifecycle-job";

  private JobFile() {}

  /** The record and whether its owner still lives. */
  public record JobState(JobRecord record, Liveness owner) {
    /**
     * Whether the file says RUNNING but its owner is proven gone: it died without recording an end
     * (SIGKILL, OOM, power loss). Only proof counts: an owner that cannot be probed is not gone.
     *
     * @return {@code true} only for a RUNNING record whose owner is {@link Liveness#GONE}
     */
    public boolean isAbandoned() {
      return record.status() == WorkerStatus.RUNNING && owner == Liveness.GONE;
    }
  }

  /**
   * Reads the record at {@code file}.
   *
   * @param file the job file
   * @return the record as written
   * @throws IOException if it cannot be read, is corrupt, or has a newer format version
   */
  public static JobRecord read(Path file) throws IOException {
    Properties p = new Properties();
    p.load(new StringReader(Files.readString(file, UTF_8)));
    if (!FORMAT.equals(p.getProperty("format"))) {
      throw corrupt(file, "not a job file (format=" + p.getProperty("format") + ")");
    }
    try {
      int version = Integer.parseInt(required(p, "version", file));
      if (version > VERSION || version < 1) {
        throw corrupt(file, "unsupported format version " + version + " (reader: " + VERSION + ")");
      }
      String ended = p.getProperty("ended", "");
      return new JobRecord(
          required(p, "job", file),
          WorkerStatus.valueOf(required(p, "status", file)),
          new ProcessIdentity(
              Long.parseLong(required(p, "owner.pid", file)),
              Long.parseLong(required(p, "owner.start", file)),
              p.getProperty("owner.boot", "")),
          Instant.parse(required(p, "started", file)),
          ended.isEmpty() ? null : Instant.parse(ended),
          Limit.parse(required(p, "ceiling", file)),
          p.getProperty("reason", ""));
    } catch (IllegalArgumentException | DateTimeException e) {
      throw corrupt(file, e.getMessage());
    }
  }

  /**
   * Reads the record at {@code file} and judges its owner by identity ({@link Liveness#judge}): a
   * pid that now belongs to a process of a known, different identity counts as the owner being
   * gone; a pid whose identity cannot be read (EPERM, {@code hidepid}) does not. Temp files left by
   * writers proven gone (a worker SIGKILLed mid-write) are removed first, even when the job file
   * itself does not exist (yet).
   *
   * @param file the job file
   * @param platform probes the owner
   * @return the record and its owner's liveness now
   * @throws IOException if the file cannot be read, is corrupt, or has a newer format version
   */
  public static JobState inspect(Path file, ProcessPlatform platform) throws IOException {
    sweep(file.toAbsolutePath(), platform); // also when the file is absent: a first write died
    JobRecord record = read(file);
    return new JobState(record, Liveness.judge(platform, record.owner()).liveness());
  }

  /**
   * {@link #inspect(Path, ProcessPlatform)} on {@link ProcessPlatform#get()}.
   *
   * @param file the job file
   * @return the record and its owner's liveness now
   * @throws IOException as {@link #inspect(Path, ProcessPlatform)}
   */
  public static JobState inspect(Path file) throws IOException {
    return inspect(file, ProcessPlatform.get());
  }

  /** Replaces {@code file} with {@code record} atomically and durably; creates a 0700 parent. */
  static void write(Path file, JobRecord record) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    AtomicFile.replace(file.toAbsolutePath(), format(record).getBytes(UTF_8));
    sweep(file.toAbsolutePath(), ProcessPlatform.get());
  }

  /** A worker SIGKILLed mid-write leaves its temp file: the next write or inspect removes it. */
  private static void sweep(Path file, ProcessPlatform platform) {
    AtomicFile.sweepTemps(
        file, pid -> Liveness.judge(platform, ProcessIdentity.ofPid(pid)).isProvenGone());
  }

  static String format(JobRecord r) {
    Properties p = new Properties();
    p.setProperty("format", FORMAT);
    p.setProperty("version", Integer.toString(VERSION));
    p.setProperty("job", r.jobId());
    p.setProperty("status", r.status().name());
    p.setProperty("owner.pid", Long.toString(r.owner().pid()));
    p.setProperty("owner.start", Long.toString(r.owner().startTime()));
    p.setProperty("owner.boot", r.owner().bootId());
    p.setProperty("started", r.startedAt().toString());
    p.setProperty("ended", r.endedAt() == null ? "" : r.endedAt().toString());
    p.setProperty("ceiling", r.ceiling().isEnabled() ? r.ceiling().duration().toString() : "0");
    p.setProperty("reason", r.reason());
    StringWriter out = new StringWriter();
    try {
      p.store(out, "lifecycle worker job");
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  private static String required(Properties p, String key, Path file) throws IOException {
    String value = p.getProperty(key);
    if (value == null || value.isEmpty()) {
      throw corrupt(file, "missing " + key);
    }
    return value;
  }

  private static IOException corrupt(Path file, String why) {
    return new IOException("corrupt job file " + file + ": " + why);
  }
}
