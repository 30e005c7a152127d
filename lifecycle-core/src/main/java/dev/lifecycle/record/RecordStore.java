package dev.lifecycle.record;

import dev.lifecycle.internal.Ascii;
import dev.lifecycle.internal.AtomicFile;
import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.OwnerOnly;
import dev.lifecycle.probe.EndpointProbe;
import dev.lifecycle.process.Liveness;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Session records in one directory that only the current user can reach. Thread-safe, and safe
 * across processes.
 *
 * <pre>{@code
 * RecordStore store = RecordStore.open(stateDir); // created owner-only (0700) if absent
 * ReadResult result = store.read("workspace-broker"); // reclaims a record whose owner is gone
 * if (result.isValid()) {
 *   Endpoint endpoint = result.record().orElseThrow().endpoint();
 * }
 * }</pre>
 *
 * <p>Files per record name {@code n}: {@code n.record} (the record, mode 0600), {@code n.lock}
 * (empty, never deleted), transient {@code .n.record.<pid>.*.tmp} files during a publish, {@code
 * n.corrupt-<UTC timestamp>} for quarantined records, and the owners' generation directories {@code
 * n.gen-*}. Litter of owners proven gone (temp files, generation directories no record names) is
 * swept under the lock by every publish and reclaim.
 *
 * <p>Locking: {@link #publish} takes the name's lock around its rename; {@link #compareAndClear},
 * reclaim and quarantine take it around read-check-delete, so no record can be replaced between the
 * check and the delete. Readers of a record never need the lock: a rename is atomic, so they see
 * the old record or the new one, whole. Thread-safe; safe across processes.
 */
public final class RecordStore {
  private static final LazyLogger LOG = LazyLogger.of(RecordStore.class);

  /** A publisher that replaces the record on every attempt is a bug, not a race to win. */
  private static final int MAX_ATTEMPTS = 3;

  private final Path directory;
  private final UserPrincipal user;
  private final ProcessPlatform platform;
  private final Duration probeTimeout;
  private final TestHooks hooks;
  private final Litter litter;
  private final RecordLock lock;
  private final Reclaim reclaim;

  /**
   * Seams that let tests pause a clearer after its read ({@code null}: none, so that opening a
   * store links no lambda), and switch the lock off to prove it.
   */
  record TestHooks(Consumer<String> afterClearRead, boolean locking) {
    static final TestHooks NONE = new TestHooks(null, true);
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
    this.litter = new Litter(directory, user, platform);
    this.lock = new RecordLock(directory, hooks.locking());
    this.reclaim = new Reclaim(directory, user, litter, lock);
  }

  /**
   * {@link #open(Path, ProcessPlatform)} with {@link ProcessPlatform#get()}.
   *
   * @param directory the store's directory, created with mode 0700 if absent
   * @return the store
   * @throws IOException as {@link #open(Path, ProcessPlatform)}
   */
  public static RecordStore open(Path directory) throws IOException {
    return open(directory, ProcessPlatform.get());
  }

  /**
   * Opens the store in {@code directory}, creating it with mode 0700 if absent.
   *
   * @param directory the store's directory, created with mode 0700 if absent
   * @param platform judges whether record owners are alive
   * @return the store
   * @throws UnsafeStoreException when the directory is a symbolic link, not a directory, owned by
   *     another user, or accessible to group or others
   */
  public static RecordStore open(Path directory, ProcessPlatform platform) throws IOException {
    dev.lifecycle.internal.PlatformRequirements.requirePosix("RecordStore");
    UserPrincipal user = OwnerOnly.currentUser();
    return new RecordStore(
        SafeFiles.ownerOnlyDirectory(directory, user),
        user,
        Objects.requireNonNull(platform, "platform"),
        EndpointProbe.DEFAULT_TIMEOUT,
        TestHooks.NONE);
  }

  /**
   * This store with another endpoint probe timeout for {@link #read(String)}.
   *
   * @param timeout how long a record's endpoint may take to answer, positive
   * @return a new store on the same directory; this one is unchanged
   * @throws IllegalArgumentException if {@code timeout} is zero or negative
   */
  public RecordStore withProbeTimeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("probe timeout must be positive: " + timeout);
    }
    return new RecordStore(directory, user, platform, timeout, hooks);
  }

  RecordStore withTestHooks(TestHooks hooks) {
    return new RecordStore(directory, user, platform, probeTimeout, hooks);
  }

  /**
   * The absolute directory of this store.
   *
   * @return the directory, as opened (symbolic links refused)
   */
  public Path directory() {
    return directory;
  }

  /**
   * The file that holds record {@code name}.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @return {@code <directory>/<name>.record}, whether or not it exists
   * @throws IllegalArgumentException if {@code name} is not a valid record name
   */
  public Path recordFile(String name) {
    return directory.resolve(checkName(name) + ".record");
  }

  /**
   * Publishes {@code record} under {@code name}, replacing any record there: written to a temp file
   * in the same directory, forced to disk, then renamed over the old one under the name's lock, and
   * the directory forced. A reader sees the old record or the new one, never a part. Under the same
   * lock, litter of proven-gone owners of this name is swept ({@link #sweep}).
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @param record the record to publish
   * @throws IOException when the store cannot be read or written
   * @throws IllegalArgumentException when an artifact lies outside what this store may delete (see
   *     {@link #createGenerationDirectory})
   */
  public void publish(String name, SessionRecord record) throws IOException {
    publish(name, record, false);
  }

  /**
   * Publishes {@code record} unless {@code name} is served by another owner: under the name's lock,
   * a current record whose owner is not proven gone and whose endpoint answers makes this return
   * that record and publish nothing. A starter that lost a race (its spawner died, a second one
   * started it) therefore never replaces a live broker, and never two serve one name.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @param record the record to publish
   * @throws IOException when the store cannot be read or written
   * @return the record that was kept, or empty when {@code record} was published
   */
  public Optional<SessionRecord> publishIfVacant(String name, SessionRecord record)
      throws IOException {
    return publish(name, record, true);
  }

  private Optional<SessionRecord> publish(String name, SessionRecord record, boolean ifVacant)
      throws IOException {
    Path target = recordFile(name);
    String unconfined = Confinement.check(directory, name, record);
    if (unconfined != null) {
      throw new IllegalArgumentException("record " + name + " not published: " + unconfined);
    }
    byte[] bytes = RecordFormat.write(record, platform.identityClock());
    AtomicReference<Optional<SessionRecord>> kept = new AtomicReference<>(Optional.empty());
    AtomicFile.replace(
        target,
        bytes,
        rename ->
            lock.holding(
                name,
                () -> {
                  if (ifVacant) {
                    kept.set(servedByAnother(target, record));
                    if (kept.get().isPresent()) {
                      return null; // the temp file is removed by replace()
                    }
                  }
                  rename.run();
                  litter.sweep(name, record);
                  return null;
                }));
    return kept.get();
  }

  private Optional<SessionRecord> servedByAnother(Path file, SessionRecord mine)
      throws IOException {
    RecordFile seen = RecordFile.read(file, user);
    if (seen == null) {
      return Optional.empty();
    }
    SessionRecord current;
    try {
      current = seen.parse(platform.identityClock());
    } catch (RecordFormat.Unreadable e) {
      return Optional.empty(); // corrupt: nobody can use it, replacing it loses nothing live
    }
    if (current.owner().equals(mine.owner()) || ownerVerdict(current).isProvenGone()) {
      return Optional.empty();
    }
    return EndpointProbe.probe(current.endpoint(), probeTimeout).isReachable()
        ? Optional.of(current)
        : Optional.empty();
  }

  /**
   * Creates a fresh generation directory for an owner of {@code name} in this store, mode 0700,
   * named after its creator ({@code <name>.gen-<pid>-<start>-<clock>-<random>}, base 36, short
   * enough that a Unix socket path inside it stays within the kernel's limit) so that {@link
   * #sweep} can remove it once its creator is proven gone even if no record ever named it.
   *
   * <p>Artifacts of a record are confined: its directory must be a direct child of the store whose
   * name starts with {@code <name>.}; its other artifacts must lie directly in that directory, or
   * directly in the store with a name starting with {@code <name>.}. The store's own files ({@code
   * .record}, {@code .lock}, {@code .start-lock}, quarantined records) are never artifacts.
   * Publishing refuses anything else, and reclaim leaves it in place.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @return the new directory's path
   * @throws IOException when the directory cannot be created
   */
  public Path createGenerationDirectory(String name) throws IOException {
    return litter.createGenerationDirectory(checkName(name));
  }

  /**
   * Removes the litter of proven-gone owners of {@code name} under the name's lock: generation
   * directories ({@link #createGenerationDirectory}) that the current record does not name, whose
   * creator is proven gone, and temp files of publishers proven gone. Nothing is followed through a
   * link; anything whose creator may be alive stays.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @throws IOException when the store cannot be read or written
   * @return what was removed
   */
  public List<Path> sweep(String name) throws IOException {
    Path file = recordFile(name);
    return lock.holding(
        name,
        () -> {
          RecordFile seen = RecordFile.read(file, user);
          SessionRecord current = null;
          if (seen != null) {
            try {
              current = seen.parse(platform.identityClock());
            } catch (RecordFormat.Unreadable e) {
              current = null;
            }
          }
          return litter.sweep(name, current);
        });
  }

  /**
   * Removes record {@code name} if it still carries {@code token}: the check and the delete happen
   * under the name's lock, so a successor that published meanwhile keeps its record. A record that
   * cannot be read is not deleted (it may be anyone's). Artifacts are the caller's to remove.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @param token the token of the record the caller published
   * @throws IOException when the store cannot be read or written
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
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @param owner the owner the record must name
   * @return whether this call removed the record
   * @throws IOException when the store cannot be read or written
   */
  public boolean compareAndClear(String name, ProcessIdentity owner) throws IOException {
    Objects.requireNonNull(owner, "owner");
    return clearIf(name, record -> record.owner().equals(owner));
  }

  private boolean clearIf(String name, Predicate<SessionRecord> ours) throws IOException {
    Path file = recordFile(name);
    return lock.holding(
        name,
        () -> {
          RecordFile seen = RecordFile.read(file, user);
          if (seen == null) {
            return false;
          }
          SessionRecord record;
          try {
            record = seen.parse(platform.identityClock());
          } catch (RecordFormat.Unreadable e) {
            LOG.warn("Did not clear {}: unreadable records are not ours to delete ({})", file, e);
            return false;
          }
          if (hooks.afterClearRead() != null) {
            hooks.afterClearRead().accept(name);
          }
          if (!ours.test(record)) {
            return false;
          }
          Files.delete(file);
          AtomicFile.syncDirectory(directory);
          return true;
        });
  }

  /**
   * Looks at record {@code name} and judges it on proof, without changing anything: no reclaim, no
   * quarantine, no sweep. {@link ReadResult.Status#OWNER_GONE} here means "proven gone, still on
   * disk" and {@link ReadResult.Status#CORRUPT} "would be quarantined" (no {@link
   * ReadResult#quarantinedAs()}). Safe for monitoring, status commands and dry runs.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @return the record's status, judged without side effects
   * @throws IOException when the record file cannot be read
   */
  public ReadResult look(String name) throws IOException {
    RecordFile seen = RecordFile.read(recordFile(name), user);
    if (seen == null) {
      return ReadResult.absent(name);
    }
    try {
      SessionRecord record = seen.parse(platform.identityClock());
      if (ownerVerdict(record).isProvenGone()) {
        return ReadResult.ownerGone(name, record, List.of());
      }
      return ReadResult.probed(name, record, EndpointProbe.probe(record.endpoint(), probeTimeout));
    } catch (RecordFormat.Unreadable e) {
      return e.newerFormat()
          ? ReadResult.unsupported(name, e.getMessage())
          : ReadResult.corrupt(name, Optional.empty(), e.getMessage());
    }
  }

  /**
   * Reads record {@code name}, decides on proof whether to trust it, and tidies up what proof
   * allows (see {@link #look} for a read without side effects). The owner is checked first: proven
   * gone ({@link Liveness.Verdict#isProvenGone()}) means the record and its confined artifacts are
   * reclaimed under the lock, if the record is still the one read, and the name's litter is swept.
   * Otherwise the endpoint is probed: an answer makes the record {@link ReadResult.Status#VALID};
   * silence makes it {@link ReadResult.Status#UNRESPONSIVE} and nothing is touched, since a busy
   * owner is not a dead one. A corrupt, truncated, oversized or non-regular record file is renamed
   * aside and reported; one written in a newer format is left in place and reported. Never blocks
   * on a FIFO.
   *
   * @param name the record name: 1-100 of [A-Za-z0-9._-], starting with a letter or digit
   * @return the record's status after the tidying
   * @throws IOException when the store cannot be read or written
   */
  public ReadResult read(String name) throws IOException {
    Path file = recordFile(name);
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      RecordFile seen = RecordFile.read(file, user);
      if (seen == null) {
        return ReadResult.absent(name);
      }
      ReadResult result;
      try {
        SessionRecord record = seen.parse(platform.identityClock());
        result =
            ownerVerdict(record).isProvenGone()
                ? reclaim.ownerGone(name, file, seen, record)
                : ReadResult.probed(
                    name, record, EndpointProbe.probe(record.endpoint(), probeTimeout));
      } catch (RecordFormat.Unreadable e) {
        result = e.newerFormat() ? unsupported(name, e) : reclaim.corrupt(name, file, seen, e);
      }
      if (result != null) {
        return result;
      }
      // The record changed between our read and our lock: judge the new one.
    }
    throw new IOException(file + " was replaced " + MAX_ATTEMPTS + " times while being read");
  }

  private Liveness.Verdict ownerVerdict(SessionRecord record) {
    return Liveness.judge(platform, record.owner());
  }

  private ReadResult unsupported(String name, RecordFormat.Unreadable why) {
    LOG.warn("Left session record {} alone: {}", recordFile(name), why.getMessage());
    return ReadResult.unsupported(name, why.getMessage());
  }

  Path lockFile(String name) {
    return lock.file(checkName(name));
  }

  private static String checkName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()
        || name.length() > 100
        || !Ascii.isLetterOrDigit(name.charAt(0))
        || !Ascii.isWord(name, 1, "._-")) {
      throw new IllegalArgumentException(
          "record name must be 1-100 of [A-Za-z0-9._-], starting with a letter or digit: " + name);
    }
    return name;
  }
}
