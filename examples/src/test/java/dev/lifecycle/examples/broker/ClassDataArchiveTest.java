package dev.lifecycle.examples.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker JVM's archive options: train under a private name, promote when settled, retrain. */
class ClassDataArchiveTest {
  @TempDir Path dir;

  @AfterEach
  void clear() {
    System.clearProperty(ClassDataArchive.DIRECTORY_PROPERTY);
  }

  private static String value(List<String> options, String flag) {
    return options.stream()
        .filter(o -> o.startsWith(flag + "="))
        .map(o -> o.substring(flag.length() + 1))
        .findFirst()
        .orElse("");
  }

  /** The archive a training run in {@link #dir} would write: its private name without the tail. */
  private Path archiveOfATrainingRun() {
    System.setProperty(ClassDataArchive.DIRECTORY_PROPERTY, dir.toString());
    Path partial = Path.of(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit"));
    String name = partial.getFileName().toString();
    return dir.resolve(name.substring(0, name.indexOf(".jsa") + 4));
  }

  @Test
  void nothingWithoutADirectory() {
    assertThat(ClassDataArchive.options("broker")).isEmpty();
  }

  @Test
  void trainsThenPromotesASettledArchiveThenUsesIt() throws Exception {
    System.setProperty(ClassDataArchive.DIRECTORY_PROPERTY, dir.toString());
    Path partial = Path.of(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit"));
    assertThat(partial.getParent()).isEqualTo(dir);
    assertThat(partial.getFileName().toString()).startsWith("broker-").endsWith(".tmp");

    // the training JVM wrote it at exit, just now: not settled yet, so train again
    Files.write(partial, new byte[] {1});
    assertThat(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit")).isNotEmpty();

    Files.setLastModifiedTime(
        partial, FileTime.from(Instant.now().minus(ClassDataArchive.SETTLED).minusSeconds(1)));
    Path archive = Path.of(value(ClassDataArchive.options("broker"), "-XX:SharedArchiveFile"));
    assertThat(archive).isRegularFile();
    assertThat(partial).doesNotExist();
    assertThat(value(ClassDataArchive.options("broker"), "-XX:SharedArchiveFile"))
        .isEqualTo(archive.toString());
  }

  @Test
  void anArchiveOlderThanAJarOfTheClassPathIsRetrained() throws Exception {
    Path archive = archiveOfATrainingRun();
    Files.write(archive, new byte[] {1});
    Files.setLastModifiedTime(archive, FileTime.from(Instant.EPOCH)); // older than every jar
    assertThat(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit")).isNotEmpty();
    assertThat(archive).doesNotExist();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.filter(f -> f.toString().endsWith(".jsa"))).isEmpty();
    }
  }

  @Test
  void anArchiveTheLastJvmRefusedIsRetrained() throws Exception {
    Path archive = archiveOfATrainingRun();
    Files.write(archive, new byte[] {1}); // newer than every jar
    List<String> use = ClassDataArchive.options("broker");
    assertThat(value(use, "-XX:SharedArchiveFile")).isEqualTo(archive.toString());
    Path rejected = ClassDataArchive.rejected(archive);
    assertThat(use)
        .contains("-Xlog:cds=warning,cds+dynamic=warning:file=" + rejected + "::filecount=0");

    Files.writeString(rejected, ""); // what a JVM that used the archive leaves
    assertThat(value(ClassDataArchive.options("broker"), "-XX:SharedArchiveFile")).isNotEmpty();

    Files.writeString(
        rejected, "[warning][cds,dynamic] Unable to use shared archive. The top archive failed");
    assertThat(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit")).isNotEmpty();
    assertThat(archive).doesNotExist();
    assertThat(rejected).doesNotExist();
  }

  @Test
  void settledLeftoversOfAnArchiveInUseAreDeletedAndFreshOnesKept() throws Exception {
    System.setProperty(ClassDataArchive.DIRECTORY_PROPERTY, dir.toString());
    Path first = Path.of(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit"));
    Path second = Path.of(value(ClassDataArchive.options("broker"), "-XX:ArchiveClassesAtExit"));
    FileTime old = FileTime.from(Instant.now().minus(ClassDataArchive.SETTLED).minusSeconds(1));
    for (Path partial : List.of(first, second)) { // two brokers trained at the same time
      Files.write(partial, new byte[] {1});
      Files.setLastModifiedTime(partial, old);
    }
    Path archive = Path.of(value(ClassDataArchive.options("broker"), "-XX:SharedArchiveFile"));
    Path writing = Path.of(archive + ".still-being-written.tmp");
    Files.write(writing, new byte[] {1});

    assertThat(value(ClassDataArchive.options("broker"), "-XX:SharedArchiveFile"))
        .isEqualTo(archive.toString());
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactlyInAnyOrder(archive, writing);
    }
  }
}
