package dev.lifecycle.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.record.ReadResult.Status;
import dev.lifecycle.testing.Requirement;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A record built through any public path names its owner by full identity: once the owner's pid
 * belongs to another process, or the owner's boot is over, readers prove it gone. The live process
 * at the pid is this JVM, so the pid is certainly in use.
 */
class RecordOwnerProofTest {
  private static final ProcessPlatform PLATFORM = ProcessPlatform.get();

  @TempDir Path tmp;

  private RecordStore store;
  private Endpoint silent;

  /** One public way to build a record that names {@code owner}. */
  interface Build {
    SessionRecord of(ProcessIdentity owner, Endpoint endpoint);
  }

  static Stream<Named<Build>> everyPublicWay() {
    return Stream.of(
        Named.of(
            "canonical constructor",
            (owner, endpoint) ->
                new SessionRecord(owner, endpoint, Map.of(), "token-0123456789", Instant.now())),
        Named.of(
            "newGeneration(owner, ...)",
            (owner, endpoint) -> SessionRecord.newGeneration(owner, endpoint, Map.of())),
        Named.of(
            "newGeneration(platform, ...)",
            (owner, endpoint) -> SessionRecord.newGeneration(selfIs(owner), endpoint, Map.of())));
  }

  /** The real platform, except that it says this JVM is {@code owner}. */
  private static ProcessPlatform selfIs(ProcessIdentity owner) {
    return (ProcessPlatform)
        Proxy.newProxyInstance(
            ProcessPlatform.class.getClassLoader(),
            new Class<?>[] {ProcessPlatform.class},
            (proxy, method, args) -> {
              if (method.getName().equals("self")) {
                return owner;
              }
              try {
                return method.invoke(PLATFORM, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @BeforeEach
  void setUp() throws IOException {
    Requirement.require(PLATFORM.self().isComplete(), "needs start times and boot ids");
    store = RecordStore.open(tmp.resolve("records"), PLATFORM);
    silent = Endpoint.unix(tmp.resolve("nobody-listens.sock"));
  }

  private static ProcessIdentity live() {
    return PLATFORM.self();
  }

  /** What a record of an exited process says once its pid is reused by a live one. */
  private static ProcessIdentity reusedPid() {
    ProcessIdentity live = live();
    return new ProcessIdentity(live.pid(), live.startTime() - 1, live.bootId());
  }

  private static ProcessIdentity anotherBoot() {
    ProcessIdentity live = live();
    return new ProcessIdentity(live.pid(), live.startTime(), UUID.randomUUID().toString());
  }

  private void assertProvenGone(SessionRecord record) throws IOException {
    store.publish("broker", record);

    assertThat(store.look("broker").status()).isEqualTo(Status.OWNER_GONE);
    assertThat(store.recordFile("broker")).as("look changes nothing").exists();
    assertThat(store.read("broker").status()).isEqualTo(Status.OWNER_GONE);
    assertThat(store.recordFile("broker")).as("read reclaims").doesNotExist();
  }

  @ParameterizedTest
  @MethodSource("everyPublicWay")
  void aReusedPidProvesTheOwnerGone(Build build) throws IOException {
    assertProvenGone(build.of(reusedPid(), silent));
  }

  @ParameterizedTest
  @MethodSource("everyPublicWay")
  void anotherBootProvesTheOwnerGone(Build build) throws IOException {
    assertProvenGone(build.of(anotherBoot(), silent));
  }

  @ParameterizedTest
  @MethodSource("everyPublicWay")
  void aLiveOwnerIsNotReclaimed(Build build) throws IOException {
    SessionRecord record = build.of(live(), silent);
    store.publish("broker", record);

    ReadResult result = store.read("broker");

    assertThat(result.status()).isEqualTo(Status.UNRESPONSIVE);
    assertThat(result.record()).contains(record);
    assertThat(store.recordFile("broker")).exists();
  }

  @Test
  void theStoreWritesItsPlatformsClockForReadersOfEveryVersion() throws IOException {
    store.publish("broker", SessionRecord.newGeneration(PLATFORM, silent, Map.of()));

    assertThat(Files.readString(store.recordFile("broker")))
        .contains("owner.clock=" + PLATFORM.identityClock());
  }

  @Test
  void aRecordAnOlderVersionWroteIsJudgedByItsOwnersStartTime() throws IOException {
    Requirement.require(
        ProcessPlatform.LINUX_PROC_CLOCK.equals(PLATFORM.identityClock()), "needs Linux /proc");
    ProcessIdentity owner = reusedPid();
    Files.writeString(
        store.recordFile("broker"),
        String.join(
            "\n",
            "format=1",
            "token=0123456789abcdef",
            "owner.pid=" + owner.pid(),
            "owner.start=" + owner.startTime(),
            "owner.boot=" + owner.bootId(),
            "owner.clock=linux-proc",
            "endpoint=" + silent,
            "created=2025-01-01T12:00:00Z",
            ""));

    assertThat(store.read("broker").status()).isEqualTo(Status.OWNER_GONE);
    assertThat(store.recordFile("broker")).doesNotExist();
  }
}
