package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult.Status;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records written by an attacker, a crash or a killed owner: nothing is lost, nobody is hurt. */
class RecordHostileInputTest {
  private final ProcessPlatform platform = ProcessPlatform.get();

  @TempDir Path tmp;

  private RecordStore store() throws IOException {
    return RecordStore.open(tmp.resolve("records"), platform);
  }

  private SessionRecord record(ProcessIdentity owner, Map<ArtifactKind, Path> artifacts) {
    return SessionRecord.newGeneration(owner, Endpoint.tcp("127.0.0.1", 9), artifacts);
  }

  /** The identity of a process that has exited (and been reaped). */
  private ProcessIdentity goneProcess() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    ProcessIdentity id = platform.identify(p.pid()).orElseThrow();
    p.destroyForcibly();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return id;
  }

  @Test
  void artifactsOutsideTheStoreAreRefusedAtPublishAndLeftAtReclaim() throws Exception {
    RecordStore store = store();
    Path precious = Files.writeString(tmp.resolve("precious"), "keep");
    Path otherRecord = store.directory().resolve("other.record");
    Files.writeString(otherRecord, "someone else's");
    ProcessIdentity gone = goneProcess();
    SessionRecord evil =
        record(gone, Map.of(ArtifactKind.PID_FILE, precious, ArtifactKind.LOG_FILE, otherRecord));

    assertThatThrownBy(() -> store.publish("broker", evil))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outside");
    Files.write(store.recordFile("broker"), RecordFormat.write(evil, platform.identityClock()));
    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.OWNER_GONE);
    assertThat(result.leftBehind()).containsExactlyInAnyOrder(precious, otherRecord);
    assertThat(Files.readString(precious)).isEqualTo("keep");
    assertThat(Files.readString(otherRecord)).isEqualTo("someone else's");
    assertThat(store.recordFile("broker")).doesNotExist();
  }

  @Test
  void aFifoInPlaceOfARecordIsRefusedWithoutBlocking() throws Exception {
    RecordStore store = store();
    Path fifo = store.recordFile("broker");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(mkfifo.exitValue()).isZero();

    // Opening a FIFO blocks until a writer comes: bounded here so a regression fails, not hangs.
    ReadResult seen =
        CompletableFuture.supplyAsync(() -> call(store, true)).get(5, TimeUnit.SECONDS);
    ReadResult result =
        CompletableFuture.supplyAsync(() -> call(store, false)).get(5, TimeUnit.SECONDS);
    assertThat(seen.status()).isEqualTo(Status.CORRUPT);
    assertThat(seen.problem().orElseThrow()).contains("not a regular file");
    assertThat(result.status()).isEqualTo(Status.CORRUPT);
    assertThat(fifo).doesNotExist();
    assertThat(result.quarantinedAs().orElseThrow()).exists();
  }

  private static ReadResult call(RecordStore store, boolean look) {
    try {
      return look ? store.look("broker") : store.read("broker");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aRecordCutAtAnyPointIsNeverAccepted() throws Exception {
    RecordStore store = store();
    byte[] whole = RecordFormat.write(record(platform.self(), Map.of()), platform.identityClock());
    for (int cut = 1; cut < whole.length; cut++) {
      Files.write(store.recordFile("broker"), Arrays.copyOf(whole, cut));
      ReadResult seen = store.look("broker");
      assertThat(seen.status()).as("cut at %d of %d", cut, whole.length).isEqualTo(Status.CORRUPT);
    }
    Files.write(store.recordFile("broker"), whole);
    assertThat(store.look("broker").status()).isEqualTo(Status.UNRESPONSIVE); // nothing listens
  }

  @Test
  void formatOneRecordsAreStillRead() throws Exception {
    RecordStore store = store();
    SessionRecord old = record(platform.self(), Map.of());
    Files.writeString(store.recordFile("broker"), RecordStoreTest.formatOne(old));

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.UNRESPONSIVE);
    assertThat(result.record()).contains(old);
  }

  @Test
  void oversizedRecordsAreQuarantinedUnread() throws Exception {
    RecordStore store = store();
    byte[] big = new byte[65 * 1024];
    Arrays.fill(big, (byte) 'a');
    Files.write(store.recordFile("broker"), big);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.CORRUPT);
    assertThat(result.problem().orElseThrow()).contains("bytes");
  }

  @Test
  void lookChangesNothing() throws Exception {
    RecordStore store = store();
    Path home = Files.createDirectory(store.directory().resolve("broker.home"));
    store.publish("broker", record(goneProcess(), Map.of(ArtifactKind.DIRECTORY, home)));
    Files.writeString(store.recordFile("corrupt"), "not a record");

    ReadResult gone = store.look("broker");
    ReadResult corrupt = store.look("corrupt");

    assertThat(gone.status()).isEqualTo(Status.OWNER_GONE);
    assertThat(corrupt.status()).isEqualTo(Status.CORRUPT);
    assertThat(corrupt.quarantinedAs()).isEmpty();
    assertThat(store.recordFile("broker")).exists();
    assertThat(home).exists();
    assertThat(store.recordFile("corrupt")).exists();
    assertThat(store.read("broker").status()).isEqualTo(Status.OWNER_GONE); // read does act
    assertThat(home).doesNotExist();
  }

  @Test
  void publishIfVacantNeverReplacesALiveReachableOwner() throws Exception {
    RecordStore store = store();
    Process other = new ProcessBuilder("sleep", "60").start();
    Path socket = store.directory().resolve("broker.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      SessionRecord serving =
          SessionRecord.newGeneration(
              platform.identify(other.pid()).orElseThrow(),
              Endpoint.unix(socket),
              Map.of(ArtifactKind.SOCKET, socket));
      store.publish("broker", serving);
      SessionRecord late = record(platform.self(), Map.of());

      assertThat(store.publishIfVacant("broker", late)).contains(serving);
      assertThat(store.look("broker").record()).contains(serving);

      other.destroyForcibly();
      assertThat(other.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(store.publishIfVacant("broker", late)).isEmpty();
      assertThat(store.look("broker").record()).contains(late);
    } finally {
      other.destroyForcibly();
    }
  }

  @Test
  void litterOfGoneOwnersIsSweptAndLiveOnesKept() throws Exception {
    RecordStore store = store();
    ProcessIdentity gone = goneProcess();
    Path dead =
        Files.createDirectory(
            store
                .directory()
                .resolve(
                    Litter.generationPrefix("broker", gone, platform.capabilities().platform())
                        + "1"));
    Files.writeString(dead.resolve("broker.sock"), "left by a SIGKILL");
    Path link = Files.createSymbolicLink(dead.resolve("link"), tmp);
    Path deadTemp =
        Files.writeString(
            store.directory().resolve(".broker.record." + gone.pid() + ".42.tmp"), "half");
    Path mine = store.createGenerationDirectory("broker");
    Path unparsable = Files.createDirectory(store.directory().resolve("broker.gen-x"));

    assertThat(store.sweep("broker")).containsExactlyInAnyOrder(dead, deadTemp);

    assertThat(dead).doesNotExist();
    assertThat(link).doesNotExist();
    assertThat(tmp).exists(); // the link was unlinked, its target untouched
    assertThat(deadTemp).doesNotExist();
    assertThat(mine).exists();
    assertThat(unparsable).exists();
    assertThat(mine.getFileName().toString())
        .startsWith("broker.gen-" + Long.toString(platform.self().pid(), 36) + "-");
    assertThat(new String(Files.readAllBytes(store.lockFile("broker")), StandardCharsets.UTF_8))
        .isEmpty();
  }
}
