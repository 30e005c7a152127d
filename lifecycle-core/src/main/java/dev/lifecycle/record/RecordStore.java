package dev.lifecycle.record;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import dev.lifecycle.probe.EndpointProbe;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session records in one directory that only the current user can reach.
 *
 * <p>Files per record name {@code n}: {@code n.record} (the record, mode 0600), {@code n.lock}
 * (empty, never deleted), transient {@code .n.*.tmp} files during a publish, and {@code
 * n.corrupt-<UTC timestamp>} for quarantined records.
 *
 * <p>Locking: {@link #publish} takes the name's lock around its rename; {@link #compareAndClear},
 * reclaim and quarantine take it around read-check-delete, so no record can be replaced between the
 * check and the delete. Readers of a record never need the lock: a rename is atomic, so they see
 * the old record or the new one, whole. Thread-safe; safe across processes.
 */
public final class RecordStore {
  private static final Logger LOG = LoggerFactory.getLogger(RecordStore.class);

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

  /** Records are a few hundred bytes; anything this large is not one. */
  private static final int MAX_RECORD_BYTES = 64 * 1024;

  /** A publisher that replaces the record on every attempt is a bug, not a race to win. */
  private static final int MAX_ATTEMPTS = 3;

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);

  private final Path directory;
  private final UserPrincipal user;
  private final ProcessPlatform platform;
  private final Duration probeTimeout;
  private final TestHooks hooks;

  /** Seams that let tests pause a clearer after its read, and switch the lock off to prove it. */
  record TestHooks(Consumer<String> afterClearRead, boolean locking) {
    static final TestHooks NONE = new TestHooks(name -> {}, true);
  }

  private RecordStore(
      Path directory,
      UserPrincipal user,
      ProcessPlatform platform,
      Duration probeTimeout,
      TestHooks hooks) {
    this.directory = directory;
    this.user = user;
    this.platform = platform;
    this.probeTimeout = probeTimeout;
    this.hooks = hooks;
  }

  /** {@link #open(Path, ProcessPlatform)} with {@link ProcessPlatform#get()}. */
  public static RecordStore open(Path directory) throws IOException {
    return open(directory, ProcessPlatform.get());
  }

  /**
   * Opens the store in {@code directory}, creating it with mode 0700 if absent.
   *
   * @throws UnsafeStoreException when the directory is a symbolic link, not a directory, owned by
   *     another user, or accessible to group or others
   */
  public static RecordStore open(Path directory, ProcessPlatform platform) throws IOException {
    dev.lifecycle.process.PlatformRequirements.requirePosix("RecordStore");
    UserPrincipal user = SafeFiles.currentUser();
    return new RecordStore(
        SafeFiles.ownerOnlyDirectory(directory, user),
        user,
        Objects.requireNonNull(platform, "platform"),
        EndpointProbe.DEFAULT_TIMEOUT,
        TestHooks.NONE);
  }

  /** This store with another endpoint probe timeout for {@link #read(String)}. */
  public RecordStore withProbeTimeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("probe timeout must be positive: " + timeout);
    }
    return new RecordStore(directory, user, platform, timeout, hooks);
  }

  RecordStore withTestHooks(TestHooks hooks) {
    return new RecordStore(directory, user, platform, probeTimeout, hooks);
  }

  /** The absolute directory of this store. */
  public Path directory() {
    return directory;
  }

  /** The file that holds record {@code name}. */
  public Path recordFile(String name) {
    return directory.resolve(checkName(name) + ".record");
  }

  /**
   * Publishes {@code record} under {@code name}, replacing any record there: written to a temp file
   * in the same directory, forced to disk, then renamed over the old one under the name's lock, and
   * the directory forced. A reader sees the old record or the new one, never a part.
   */
  public void publish(String name, SessionRecord record) throws IOException {
    Path target = recordFile(name);
    byte[] bytes = RecordFormat.write(record);
    Path temp =
        Files.createTempFile(directory, "." + name + ".", ".tmp", SafeFiles.OWNER_ONLY_FILE);
    try {
      try (FileChannel channel = FileChannel.open(temp, WRITE, NOFOLLOW_LINKS)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      locked(
          name,
          () -> {
            Files.move(temp, target, ATOMIC_MOVE);
            syncDirectory();
            return null;
          });
    } finally {
      Files.deleteIfExists(temp); // only after a failure: a renamed temp no longer exists
    }
  }

  /**
   * Removes record {@code name} if it still carries {@code token}: the check and the delete happen
   * under the name's lock, so a successor that published meanwhile keeps its record. A record that
   * cannot be read is not deleted (it may be anyone's). Artifacts are the caller's to remove.
   *
   * @return whether this call removed the record
   */
  public boolean compareAndClear(String name, String token) throws IOException {
    Objects.requireNonNull(token, "token");
    return clearIf(name, record -> record.token().equals(token));
  }

  /**
   * Removes record {@code name} if it still names exactly {@code owner} (pid, start time and boot
   * id all equal). Prefer {@link #compareAndClear(String, String)}: an owner that published twice
   * clears whichever of its generations is current.
   */
  public boolean compareAndClear(String name, ProcessIdentity owner) throws IOException {
    Objects.requireNonNull(owner, "owner");
    return clearIf(name, record -> record.owner().equals(owner));
  }

  private boolean clearIf(String name, Predicate<SessionRecord> ours) throws IOException {
    Path file = recordFile(name);
    return locked(
        name,
        () -> {
          Snapshot seen = look(file);
          if (seen == null) {
            return false;
          }
          SessionRecord record;
          try {
            record = seen.parse();
          } catch (RecordFormat.Unreadable e) {
            LOG.warn("Did not clear {}: unreadable records are not ours to delete ({})", file, e);
            return false;
          }
          hooks.afterClearRead().accept(name);
          if (!ours.test(record)) {
            return false;
          }
          Files.delete(file);
          syncDirectory();
          return true;
        });
  }

  /**
   * Reads record {@code name} and decides on proof whether to trust it. The owner is checked first:
   * proven gone ({@link Liveness#GONE}, or its pid now belongs to a process whose identity differs)
   * means the record and its artifacts are reclaimed under the lock, if the record is still the one
   * read. Otherwise the endpoint is probed: an answer makes the record {@link
   * ReadResult.Status#VALID}; silence makes it {@link ReadResult.Status#UNRESPONSIVE} and nothing
   * is touched, since a busy owner is not a dead one. A corrupt record is renamed aside and
   * reported; one written in a newer format is left in place and reported.
   */
  public ReadResult read(String name) throws IOException {
    Path file = recordFile(name);
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      Snapshot seen = look(file);
      if (seen == null) {
        return ReadResult.absent(name);
      }
      ReadResult result;
      try {
        SessionRecord record = seen.parse();
        result =
            ownerProvenGone(record)
                ? reclaim(name, seen, record)
                : ReadResult.probed(
                    name, record, EndpointProbe.probe(record.endpoint(), probeTimeout));
      } catch (RecordFormat.Unreadable e) {
        result = e.newerFormat() ? unsupported(name, e) : quarantine(name, seen, e);
      }
      if (result != null) {
        return result;
      }
      // The record changed between our read and our lock: judge the new one.
    }
    throw new IOException(file + " was replaced " + MAX_ATTEMPTS + " times while being read");
  }

  private boolean ownerProvenGone(SessionRecord record) {
    // Start times are only comparable on the clock that measured them; otherwise use the pid.
    ProcessIdentity owner =
        record.identityClock().equals(platform.identityClock())
            ? record.owner()
            : ProcessIdentity.ofPid(record.owner().pid());
    Liveness liveness = platform.probe(owner);
    if (liveness == Liveness.GONE) {
      return true;
    }
    // ALIVE_NOT_OURS is EPERM (alive) or a reused pid (gone): only a known difference proves it.
    return liveness == Liveness.ALIVE_NOT_OURS
        && platform
            .identify(owner.pid())
            .map(now -> owner.match(now) == ProcessIdentity.Match.DIFFERENT)
            .orElse(false);
  }

  /** Removes the artifacts, then the record, if it is unchanged; null if it changed. */
  private ReadResult reclaim(String name, Snapshot seen, SessionRecord record) throws IOException {
    Path file = recordFile(name);
    return locked(
        name,
        () -> {
          if (!seen.sameAs(look(file))) {
            return null;
          }
          // Artifacts first: if we die half-way, the record still leads the next reader here.
          List<Path> leftBehind = new ArrayList<>();
          for (Map.Entry<ArtifactKind, Path> artifact : record.artifacts().entrySet()) {
            if (!SafeFiles.deleteArtifact(artifact.getKey(), artifact.getValue(), user)) {
              leftBehind.add(artifact.getValue());
            }
          }
          Files.delete(file);
          syncDirectory();
          LOG.info("Reclaimed {}: owner {} is gone", file, record.owner());
          return ReadResult.ownerGone(name, record, leftBehind);
        });
  }

  private ReadResult quarantine(String name, Snapshot seen, RecordFormat.Unreadable why)
      throws IOException {
    Path file = recordFile(name);
    return locked(
        name,
        () -> {
          if (!seen.sameAs(look(file))) {
            return null;
          }
          Path aside = directory.resolve(name + ".corrupt-" + STAMP.format(Instant.now()));
          for (int i = 1; Files.exists(aside, NOFOLLOW_LINKS); i++) {
            aside = directory.resolve(name + ".corrupt-" + STAMP.format(Instant.now()) + "-" + i);
          }
          Files.move(file, aside, ATOMIC_MOVE);
          syncDirectory();
          LOG.warn(
              "Quarantined corrupt session record {} as {}: {}", file, aside, why.getMessage());
          return ReadResult.corrupt(name, aside, why.getMessage());
        });
  }

  private ReadResult unsupported(String name, RecordFormat.Unreadable why) {
    LOG.warn("Left session record {} alone: {}", recordFile(name), why.getMessage());
    return ReadResult.unsupported(name, why.getMessage());
  }

  /** One look at a record file: its bytes, or why they cannot be a record. */
  private record Snapshot(byte[] bytes, String refusal) {
    SessionRecord parse() throws RecordFormat.Unreadable {
      if (refusal != null) {
        throw new RecordFormat.Unreadable(refusal, false);
      }
      return RecordFormat.read(bytes);
    }

    /** Whether nobody replaced the file since (checked under the lock before acting on it). */
    boolean sameAs(Snapshot now) {
      return now != null && Arrays.equals(bytes, now.bytes) && Objects.equals(refusal, now.refusal);
    }
  }

  /** Reads a record file without following links; null when there is none. */
  private static Snapshot look(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, READ, NOFOLLOW_LINKS)) {
      long size = channel.size();
      if (size > MAX_RECORD_BYTES) {
        return new Snapshot(new byte[0], "it has " + size + " bytes; records are small");
      }
      ByteBuffer buffer = ByteBuffer.allocate((int) size);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // read until full or end of file
      }
      return new Snapshot(Arrays.copyOf(buffer.array(), buffer.position()), null);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      if (Files.isSymbolicLink(file)) { // O_NOFOLLOW refused it (ELOOP)
        return new Snapshot(
            new byte[0], "it is a symbolic link to " + Files.readSymbolicLink(file));
      }
      throw e;
    }
  }

  private <T> T locked(String name, RecordLock.Action<T> action) throws IOException {
    if (!hooks.locking()) {
      return action.run(); // tests only: the read-then-delete that the lock exists to prevent
    }
    return RecordLock.holding(lockFile(name), action);
  }

  Path lockFile(String name) {
    return directory.resolve(checkName(name) + ".lock");
  }

  /** Makes a rename or delete durable; not every platform can force a directory. */
  private void syncDirectory() {
    try (FileChannel channel = FileChannel.open(directory, READ)) {
      channel.force(true);
    } catch (IOException e) {
      LOG.debug("Cannot force directory {}: {}", directory, e.toString());
    }
  }

  private static String checkName(String name) {
    if (!NAME.matcher(Objects.requireNonNull(name, "name")).matches()) {
      throw new IllegalArgumentException(
          "record name must be 1-100 of [A-Za-z0-9._-], starting with a letter or digit: " + name);
    }
    return name;
  }
}
