package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.probe.ProbeResult;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult.Status;
import dev.lifecycle.testing.Requirement;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store with real files, sockets and processes. */
class RecordStoreTest {
  private final ProcessPlatform platform = ProcessPlatform.get();
  private final List<Process> children = new ArrayList<>();
  private final List<ServerSocketChannel> servers = new ArrayList<>();

  @TempDir Path tmp;

  @AfterEach
  void cleanUp() throws Exception {
    for (ServerSocketChannel server : servers) {
      server.close();
    }
    for (Process child : children) {
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).as("child %d ended", child.pid()).isTrue();
    }
  }

  private RecordStore store() throws IOException {
    return RecordStore.open(tmp.resolve("records"), platform);
  }

  private Path listening(Path socket) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    servers.add(server);
    server.bind(UnixDomainSocketAddress.of(socket));
    return socket;
  }

  /** A socket file nobody listens on: bound, then closed (the file stays). */
  private static Path staleSocket(Path socket) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
    }
    return socket;
  }

  private ProcessIdentity child() throws IOException {
    Process child = new ProcessBuilder("sleep", "60").start();
    children.add(child);
    return platform.identify(child.pid()).orElseThrow();
  }

  private SessionRecord recordOf(ProcessIdentity owner, Endpoint endpoint) {
    return recordOf(owner, endpoint, Map.of());
  }

  private SessionRecord recordOf(
      ProcessIdentity owner, Endpoint endpoint, Map<ArtifactKind, Path> artifacts) {
    return SessionRecord.newGeneration(owner, endpoint, artifacts);
  }

  /** {@code record} as a format-1 file (no end marker), as older versions wrote it. */
  static String formatOne(SessionRecord record) {
    String text =
        new String(
            RecordFormat.write(record, ProcessPlatform.get().identityClock()),
            StandardCharsets.UTF_8);
    return text.replace("format=2", "format=1").replaceAll("(?m)^end=.*\n", "");
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }

  // --- publish and read ---

  @Test
  void publishedRecordReadsBackValidWhenOwnerAliveAndEndpointAnswers() throws IOException {
    RecordStore store = store();
    Path socket = listening(store.directory().resolve("broker.sock"));
    SessionRecord record =
        SessionRecord.newGeneration(
            platform, Endpoint.unix(socket), Map.of(ArtifactKind.SOCKET, socket));
    store.publish("broker", record);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.VALID);
    assertThat(result.record()).contains(record);
    assertThat(result.probe().map(ProbeResult::isReachable)).contains(true);
    assertThat(store.read("other").status()).isEqualTo(Status.ABSENT);
  }

  @Test
  void directoryIsCreatedOwnerOnlyAndFilesAre0600() throws IOException {
    RecordStore store = store();
    store.publish("broker", recordOf(platform.self(), Endpoint.tcp("127.0.0.1", 9)));

    assertThat(mode(store.directory())).isEqualTo("rwx------");
    assertThat(mode(store.recordFile("broker"))).isEqualTo("rw-------");
    assertThat(mode(store.lockFile("broker"))).isEqualTo("rw-------");
    assertThat(Files.readString(store.recordFile("broker"))).contains("format=2");
    try (Stream<Path> files = Files.list(store.directory())) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("no temp file left behind")
          .containsExactlyInAnyOrder("broker.record", "broker.lock");
    }
  }

  @Test
  void groupAccessibleDirectoryIsRefusedWithTheFix() throws IOException {
    Path dir = Files.createDirectory(tmp.resolve("shared"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
    assertThatThrownBy(() -> RecordStore.open(dir, platform))
        .isInstanceOf(UnsafeStoreException.class)
        .hasMessageContaining("rwxr-x---")
        .hasMessageContaining("chmod 700 " + dir);
  }

  @Test
  void symlinkedDirectoryIsRefused() throws IOException {
    Path real = Files.createDirectory(tmp.resolve("real"));
    Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwx------"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    assertThatThrownBy(() -> RecordStore.open(link, platform))
        .isInstanceOf(UnsafeStoreException.class)
        .hasMessageContaining("symbolic link");
  }

  @Test
  void directoryOwnedByAnotherUserIsRefused() throws IOException {
    Requirement.require("root".equals(System.getProperty("user.name")), "needs root to chown");
    Path dir = Files.createDirectory(tmp.resolve("theirs"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    Files.setOwner(
        dir, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
    assertThatThrownBy(() -> RecordStore.open(dir, platform))
        .isInstanceOf(UnsafeStoreException.class)
        .hasMessageContaining("owned by nobody");
  }

  @Test
  void symlinkedRecordIsRefusedAndQuarantinedWithoutTouchingItsTarget() throws IOException {
    RecordStore store = store();
    Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere")).resolve("r");
    Files.write(
        elsewhere,
        RecordFormat.write(
            recordOf(platform.self(), Endpoint.tcp("127.0.0.1", 9)), platform.identityClock()));
    Files.createSymbolicLink(store.recordFile("broker"), elsewhere);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.CORRUPT);
    assertThat(result.problem().orElseThrow()).contains("symbolic link");
    assertThat(Files.isSymbolicLink(result.quarantinedAs().orElseThrow())).isTrue();
    assertThat(elsewhere).exists();
    assertThat(store.compareAndClear("broker", platform.self())).isFalse();
  }

  /** Writes a record the way an attacker (or a bug) would: bypassing publish and its checks. */
  private void hostile(RecordStore store, SessionRecord record) throws IOException {
    Files.write(store.recordFile("broker"), RecordFormat.write(record, platform.identityClock()));
  }

  // --- compare-and-clear ---

  @Test
  void compareAndClearRemovesOnlyItsOwnGeneration() throws IOException {
    RecordStore store = store();
    SessionRecord mine = recordOf(platform.self(), Endpoint.tcp("127.0.0.1", 9));
    SessionRecord successor = recordOf(platform.self(), Endpoint.tcp("127.0.0.1", 10));
    store.publish("broker", mine);
    store.publish("broker", successor);

    assertThat(store.compareAndClear("broker", mine.token())).isFalse();
    assertThat(store.recordFile("broker")).exists();
    assertThat(store.compareAndClear("broker", successor.token())).isTrue();
    assertThat(store.recordFile("broker")).doesNotExist();
    assertThat(store.compareAndClear("broker", successor.token())).isFalse();
  }

  @Test
  void compareAndClearByIdentityNeedsTheExactOwner() throws IOException {
    RecordStore store = store();
    ProcessIdentity other = child();
    store.publish("broker", recordOf(other, Endpoint.tcp("127.0.0.1", 9)));

    assertThat(store.compareAndClear("broker", platform.self())).isFalse();
    assertThat(store.compareAndClear("broker", ProcessIdentity.ofPid(other.pid()))).isFalse();
    assertThat(store.compareAndClear("broker", other)).isTrue();
  }

  @Test
  void unreadableRecordIsNeverClearedByItsOwner() throws IOException {
    RecordStore store = store();
    Files.writeString(store.recordFile("broker"), "format=1\ntoken=x\n");
    assertThat(store.compareAndClear("broker", "anything-at-all")).isFalse();
    assertThat(store.recordFile("broker")).exists();
  }

  // --- readers decide on proof ---

  @Test
  void recordOfAProvenGoneOwnerIsReclaimedWithItsArtifacts() throws Exception {
    RecordStore store = store();
    ProcessIdentity owner = child();
    Path home = Files.createDirectory(store.directory().resolve("broker.home"));
    Path socket = staleSocket(home.resolve("b.sock"));
    Path pidFile = Files.writeString(home.resolve("b.pid"), Long.toString(owner.pid()));
    Path logFile = Files.writeString(home.resolve("b.log"), "log");
    store.publish(
        "broker",
        recordOf(
            owner,
            Endpoint.unix(socket),
            Map.of(
                ArtifactKind.SOCKET, socket,
                ArtifactKind.PID_FILE, pidFile,
                ArtifactKind.LOG_FILE, logFile,
                ArtifactKind.DIRECTORY, home)));
    Process process = children.get(0);
    process.destroyForcibly();
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.OWNER_GONE);
    assertThat(result.leftBehind()).isEmpty();
    assertThat(home).doesNotExist();
    assertThat(store.recordFile("broker")).doesNotExist();
    assertThat(store.read("broker").status()).isEqualTo(Status.ABSENT);
  }

  @Test
  void ownerWhosePidNowNamesAnotherProcessIsProvenGone() throws IOException {
    Requirement.require(platform.self().isComplete(), "needs start time and boot id");
    RecordStore store = store();
    ProcessIdentity self = platform.self();
    ProcessIdentity earlier =
        new ProcessIdentity(self.pid(), self.startTime() - 1, self.bootId()); // a reused pid
    store.publish("broker", recordOf(earlier, Endpoint.tcp("127.0.0.1", 9)));

    assertThat(store.read("broker").status()).isEqualTo(Status.OWNER_GONE);
  }

  @Test
  void startTimesFromAnotherClockAreNotTakenAsProof() throws IOException {
    RecordStore store = store();
    ProcessIdentity self = platform.self();
    SessionRecord record =
        SessionRecord.newGeneration(
            new ProcessIdentity(self.pid(), 1, "another-boot"),
            Endpoint.unix(tmp.resolve("absent.sock")),
            Map.of());
    Files.write(store.recordFile("broker"), RecordFormat.write(record, "some-other-clock"));

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.UNRESPONSIVE);
    assertThat(result.record().map(SessionRecord::owner))
        .contains(ProcessIdentity.ofPid(self.pid()));
    assertThat(store.recordFile("broker")).exists();
  }

  @Test
  void aliveButUnresponsiveOwnerIsLeftAloneWithItsFiles() throws IOException {
    RecordStore store = store();
    ProcessIdentity owner = child(); // alive, listens nowhere
    Path socket = staleSocket(store.directory().resolve("broker.sock"));
    Path logFile = Files.writeString(store.directory().resolve("broker.log"), "log");
    SessionRecord record =
        recordOf(
            owner,
            Endpoint.unix(socket),
            Map.of(ArtifactKind.SOCKET, socket, ArtifactKind.LOG_FILE, logFile));
    store.publish("broker", record);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.UNRESPONSIVE);
    assertThat(result.probe().orElseThrow().status()).isEqualTo(ProbeResult.Status.REFUSED);
    assertThat(result.record()).contains(record);
    assertThat(socket).exists();
    assertThat(logFile).exists();
    assertThat(store.recordFile("broker")).exists();
  }

  @Test
  void corruptRecordIsQuarantinedAndReported() throws IOException {
    RecordStore store = store();
    byte[] garbage = {0x00, (byte) 0xff, 0x13, 'x'};
    Files.write(store.recordFile("broker"), garbage);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.CORRUPT);
    assertThat(result.problem()).isPresent();
    Path aside = result.quarantinedAs().orElseThrow();
    assertThat(aside.getFileName().toString()).startsWith("broker.corrupt-");
    assertThat(Files.readAllBytes(aside)).isEqualTo(garbage);
    assertThat(store.recordFile("broker")).doesNotExist();
  }

  @Test
  void recordMissingAKeyIsCorruptAndSaysWhich() throws IOException {
    RecordStore store = store();
    String text = formatOne(recordOf(platform.self(), Endpoint.tcp("::1", 9)));
    Files.writeString(store.recordFile("broker"), text.replaceAll("(?m)^endpoint=.*$", ""));

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.CORRUPT);
    assertThat(result.problem()).contains("missing endpoint");
  }

  @Test
  void newerFormatIsReportedAndLeftInPlace() throws IOException {
    RecordStore store = store();
    Files.writeString(store.recordFile("broker"), "format=3\nwhatever=new\n");

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.UNSUPPORTED_FORMAT);
    assertThat(result.problem().orElseThrow()).contains("format 3").contains("newer");
    assertThat(store.recordFile("broker")).exists();
  }

  @Test
  void reclaimRemovesOnlyWhatIsSafe() throws Exception {
    RecordStore store = store();
    ProcessIdentity owner = child();
    Path outside = Files.createDirectory(tmp.resolve("outside"));
    Path precious = Files.writeString(outside.resolve("precious"), "keep");
    Path home = Files.createDirectory(store.directory().resolve("broker.home"));
    Path linkedLog = Files.createSymbolicLink(home.resolve("b.log"), precious);
    Path viaLinkedDir = Files.createSymbolicLink(store.directory().resolve("broker.d"), outside);
    Path notASocket = Files.writeString(home.resolve("b.sock"), "regular file");
    hostile(
        store,
        recordOf(
            owner,
            Endpoint.unix(notASocket),
            Map.of(
                ArtifactKind.SOCKET, notASocket,
                ArtifactKind.LOG_FILE, linkedLog,
                ArtifactKind.PID_FILE, viaLinkedDir.resolve("precious"),
                ArtifactKind.DIRECTORY, home)));
    children.get(0).destroyForcibly().waitFor(10, TimeUnit.SECONDS);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.OWNER_GONE);
    assertThat(result.leftBehind())
        .containsExactlyInAnyOrder(notASocket, linkedLog, viaLinkedDir.resolve("precious"), home);
    assertThat(Files.readString(precious)).isEqualTo("keep");
    assertThat(notASocket).exists();
    assertThat(Files.isSymbolicLink(linkedLog)).isTrue();
    assertThat(store.recordFile("broker")).doesNotExist();
  }

  @Test
  void namesThatCouldEscapeTheDirectoryAreRejected() throws IOException {
    RecordStore store = store();
    for (String name : new String[] {"../x", ".hidden", "a/b", "", "x".repeat(101)}) {
      assertThatThrownBy(() -> store.recordFile(name))
          .as(name)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void recordFormatRoundTripsEveryField() throws Exception {
    SessionRecord record =
        recordOf(
            platform.self(),
            Endpoint.unix(tmp.resolve("ü b.sock")),
            Map.of(ArtifactKind.DIRECTORY, tmp, ArtifactKind.LOG_FILE, tmp.resolve("l=og")));
    String clock = platform.identityClock();
    assertThat(RecordFormat.read(RecordFormat.write(record, clock), clock)).isEqualTo(record);
    assertThat(new String(RecordFormat.write(record, clock), StandardCharsets.UTF_8))
        .contains("format=2");
  }
}
