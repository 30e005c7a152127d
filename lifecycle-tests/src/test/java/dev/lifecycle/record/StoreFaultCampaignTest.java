package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record store under a full disk, a read-only file system, pid churn and hostile record files
 * ({@code -Pfaults}; figures in docs/RELIABILITY.md). Mounts are tmpfs the test creates as root and
 * unmounts; without root the campaign fails (it does not skip).
 */
@Tag("faults")
class StoreFaultCampaignTest {
  private static final ProcessPlatform OS = ProcessPlatform.get();
  private static final int TRIALS = Integer.getInteger("faults.storeTrials", 200);
  private static final long SEED = Long.getLong("faults.seed", 17);

  @TempDir Path tmp;

  private SessionRecord record(ProcessIdentity owner) {
    return SessionRecord.newGeneration(owner, Endpoint.tcp("127.0.0.1", 9), Map.of());
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void enospcAndErofsFailPublishCleanlyAndKeepThePreviousRecord() throws Exception {
    Path mount = Files.createDirectory(tmp.resolve("small"));
    run("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mount.toString());
    int enospc = 0;
    int erofs = 0;
    List<String> lost = new ArrayList<>();
    try {
      RecordStore store = RecordStore.open(mount.resolve("store"));
      Path filler = mount.resolve("filler");
      for (int trial = 0; trial < TRIALS; trial++) {
        SessionRecord before = record(OS.self());
        store.publish("broker", before);
        boolean readOnly = trial % 2 == 1;
        if (readOnly) {
          run("mount", "-o", "remount,ro", mount.toString());
        } else {
          fill(filler);
        }
        try {
          store.publish("broker", record(OS.self()));
          lost.add(
              "trial "
                  + trial
                  + ": publish succeeded on a "
                  + (readOnly ? "read-only" : "full")
                  + " store");
        } catch (IOException expected) {
          if (readOnly) {
            erofs++;
          } else {
            enospc++;
          }
        } finally {
          if (readOnly) {
            run("mount", "-o", "remount,rw", mount.toString());
          } else {
            Files.deleteIfExists(filler);
          }
        }
        ReadResult after = store.look("broker");
        if (!after.record().map(r -> r.token().equals(before.token())).orElse(false)) {
          lost.add("trial " + trial + ": previous record lost: " + after);
        }
        List<String> files = names(store.directory());
        if (!files.equals(List.of("broker.lock", "broker.record"))) {
          lost.add("trial " + trial + ": litter " + files);
        }
      }
    } finally {
      run("umount", mount.toString());
    }
    String row =
        String.format(
            "ENOSPC %s trials, EROFS %s trials (of %s), failures %s",
            enospc, erofs, TRIALS, counted(lost));
    dev.lifecycle.broker.FaultReport.write("store-enospc-erofs", row);
    assertThat(lost).isEmpty();
  }

  private static void fill(Path filler) throws IOException {
    byte[] block = new byte[4096];
    try (var out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
      }
    } catch (IOException full) {
      // ENOSPC: the file system is full now.
    }
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void pidReuseChurnNeverReclaimsALiveOwner() throws Exception {
    RecordStore store = RecordStore.open(tmp.resolve("store"));
    AtomicBoolean churning = new AtomicBoolean(true);
    AtomicInteger spawned = new AtomicInteger();
    CompletableFuture<Void> churn =
        CompletableFuture.runAsync(
            () -> {
              while (churning.get()) {
                try {
                  new ProcessBuilder("true").start().waitFor();
                  spawned.incrementAndGet();
                } catch (Exception e) {
                  return;
                }
              }
            });
    Random random = new Random(SEED);
    List<String> wrong = new ArrayList<>();
    int reused = 0;
    int live = 0;
    int dead = 0;
    try {
      for (int trial = 0; trial < TRIALS; trial++) {
        Process child = new ProcessBuilder("sleep", "30").start();
        try {
          ProcessIdentity now = OS.identify(child.pid()).orElseThrow();
          int kind = random.nextInt(3);
          ProcessIdentity owner =
              kind == 0
                  ? new ProcessIdentity(now.pid(), Math.max(0, now.startTime() - 1), now.bootId())
                  : now; // 0: a record of an earlier process at this pid (reused)
          if (kind == 2) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
          }
          String name = "r" + trial;
          store.publish(name, record(owner));
          Status status = store.read(name).status();
          boolean ownerGone = kind != 1;
          if (ownerGone != (status == Status.OWNER_GONE)) {
            wrong.add("trial " + trial + " kind " + kind + ": " + status);
          }
          if (kind == 0) {
            reused++;
          } else if (kind == 1) {
            live++;
          } else {
            dead++;
          }
          store.compareAndClear(name, owner);
        } finally {
          child.destroyForcibly();
          child.waitFor(10, TimeUnit.SECONDS);
        }
      }
    } finally {
      churning.set(false);
      churn.get(30, TimeUnit.SECONDS);
    }
    String row =
        String.format(
            "%s trials with %s churn processes: %s reused-pid owners, %s live, %s dead;"
                + " wrong verdicts %s",
            TRIALS, spawned.get(), reused, live, dead, counted(wrong));
    dev.lifecycle.broker.FaultReport.write("store-pid-churn", row);
    assertThat(wrong).isEmpty();
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void hostileRecordsAreRefusedWithoutHarm() throws Exception {
    RecordStore store = RecordStore.open(tmp.resolve("store"));
    Path outside = Files.createDirectory(tmp.resolve("outside"));
    Path precious = Files.writeString(outside.resolve("precious"), "keep");
    UserPrincipal nobody =
        tmp.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    Random random = new Random(SEED);
    Map<String, int[]> kinds = new TreeMap<>();
    List<String> harm = new ArrayList<>();
    String[] names = {"corrupt", "truncated", "oversized", "foreign", "symlink", "fifo", "escape"};
    for (int trial = 0; trial < TRIALS; trial++) {
      String kind = names[random.nextInt(names.length)];
      Path file = store.recordFile("h");
      Files.deleteIfExists(file);
      byte[] valid = RecordFormat.write(record(OS.self()), OS.identityClock());
      switch (kind) {
        case "corrupt" -> {
          byte[] b = valid.clone();
          for (int i = 0; i < 1 + random.nextInt(4); i++) {
            b[random.nextInt(b.length)] ^= (byte) (1 + random.nextInt(255));
          }
          Files.write(file, b);
        }
        case "truncated" ->
            Files.write(file, Arrays.copyOf(valid, 1 + random.nextInt(valid.length - 1)));
        case "oversized" -> Files.write(file, new byte[65 * 1024 + random.nextInt(1 << 20)]);
        case "foreign" -> {
          Files.write(file, valid);
          Files.setOwner(file, nobody);
        }
        case "symlink" -> {
          Path target = Files.write(outside.resolve("r" + trial), valid);
          Files.createSymbolicLink(file, target);
        }
        case "fifo" -> run("mkfifo", file.toString());
        default -> {
          Process gone = new ProcessBuilder("true").start();
          gone.waitFor(10, TimeUnit.SECONDS);
          ProcessIdentity dead = ProcessIdentity.ofPid(gone.pid());
          Files.write(
              file,
              RecordFormat.write(
                  SessionRecord.newGeneration(
                      dead,
                      Endpoint.tcp("127.0.0.1", 9),
                      Map.of(ArtifactKind.PID_FILE, precious, ArtifactKind.DIRECTORY, outside)),
                  OS.identityClock()));
        }
      }
      ReadResult result = CompletableFuture.supplyAsync(() -> read(store)).get(5, TimeUnit.SECONDS);
      kinds.computeIfAbsent(kind, k -> new int[2])[0]++;
      boolean refused =
          switch (kind) {
            case "escape" ->
                result.status() == Status.OWNER_GONE || result.status() == Status.UNRESPONSIVE;
            default -> result.status() == Status.CORRUPT;
          };
      // A flipped byte can land in the timestamp comment; the checksum covers it too.
      if (!refused || !Files.exists(precious) || !Files.exists(outside)) {
        kinds.get(kind)[1]++;
        harm.add("trial " + trial + " " + kind + ": " + result.status() + " " + result.problem());
      }
      try (Stream<Path> aside = Files.list(store.directory())) {
        for (Path p : aside.filter(p -> p.getFileName().toString().contains("corrupt-")).toList()) {
          Files.delete(p);
        }
      }
    }
    StringBuilder row = new StringBuilder(TRIALS + " trials:");
    kinds.forEach(
        (k, v) ->
            row.append(' ')
                .append(k)
                .append(' ')
                .append(v[0])
                .append('/')
                .append(v[1])
                .append(" failed;"));
    harm.forEach(h -> row.append('\n').append(h));
    dev.lifecycle.broker.FaultReport.write("store-hostile-records", row.toString());
    assertThat(harm).isEmpty();
    assertThat(Files.readString(precious)).isEqualTo("keep");
  }

  private static ReadResult read(RecordStore store) {
    try {
      return store.read("h");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** How many {@code failures} there are and, if any, which. */
  private static String counted(List<?> failures) {
    return failures.size() + (failures.isEmpty() ? "" : ": " + failures);
  }
}
