package dev.lifecycle.posix;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Platform;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JNA's native stub is kept in a checked, owner-only cache: a JVM whose cache holds it loads it
 * from there without unpacking (and so without the JDK's temporary-file random source); a bad copy
 * is replaced; a directory others can reach is not used; what the user set for JNA is kept.
 */
class JnaBootLibraryTest {
  private static final Path JNA = JnaBootLibrary.jarOf(Platform.class).orElseThrow();

  @Test
  void writesAVerifiedOwnerOnlyCopyOnceAndReusesIt(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("cache").resolve("jna");
    Path dir = JnaBootLibrary.prepare(root, JNA).orElseThrow();
    Path copy = dir.resolve(JnaBootLibrary.LIBRARY);
    assertThat(copy.getParent().getParent()).isEqualTo(root);
    assertThat(Files.readAllBytes(copy)).isEqualTo(jarStub());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root)))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(copy)))
        .isEqualTo("r-x------");
    Object inode = Files.readAttributes(copy, BasicFileAttributes.class).fileKey();

    assertThat(JnaBootLibrary.prepare(root, JNA)).contains(dir);
    assertThat(Files.readAttributes(copy, BasicFileAttributes.class).fileKey())
        .as("a good copy is not written again")
        .isEqualTo(inode);
    try (var entries = Files.list(dir)) {
      assertThat(entries).containsExactly(copy); // no temp file left
    }
  }

  @Test
  void aCopyThatDiffersIsReplaced(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("jna");
    Path copy = JnaBootLibrary.prepare(root, JNA).orElseThrow().resolve(JnaBootLibrary.LIBRARY);
    byte[] flipped = Files.readAllBytes(copy);
    flipped[flipped.length / 2] ^= 1; // same size, other content
    Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-------"));
    Files.write(copy, flipped);

    assertThat(JnaBootLibrary.prepare(root, JNA)).isPresent();
    assertThat(Files.readAllBytes(copy)).isEqualTo(jarStub());

    Files.delete(copy);
    Files.createSymbolicLink(copy, tmp.resolve("elsewhere"));
    assertThat(JnaBootLibrary.prepare(root, JNA)).isPresent();
    assertThat(Files.isSymbolicLink(copy))
        .as("a link is replaced, never written through")
        .isFalse();
    assertThat(Files.readAllBytes(copy)).isEqualTo(jarStub());
    assertThat(tmp.resolve("elsewhere")).doesNotExist();
  }

  @Test
  void aDirectoryOthersCanReachOrALinkIsNotUsed(@TempDir Path tmp) throws Exception {
    Path open = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(JnaBootLibrary.prepare(open, JNA)).isEmpty();
    try (var entries = Files.list(open)) {
      assertThat(entries).as("nothing written into it").isEmpty();
    }

    Path real = JnaBootLibrary.prepare(tmp.resolve("real"), JNA).orElseThrow().getParent();
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    assertThat(JnaBootLibrary.prepare(link, JNA)).isEmpty();
  }

  @Test
  void aStubOutsideAJarOrNoneIsLeftToJna(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("jna");
    // JNA's classes in a directory: JNA loads the stub it finds there as a file, in place
    Path classes = JnaBootLibrary.jarOf(JnaBootLibraryTest.class).orElseThrow();
    assertThat(classes).isDirectory();
    assertThat(JnaBootLibrary.prepare(root, classes)).isEmpty();
    assertThat(JnaBootLibrary.jarOf(String.class)).as("the JDK's classes").isEmpty();
    assertThat(JnaBootLibrary.prepare(root, tmp.resolve("absent.jar"))).isEmpty();
    Path other = tmp.resolve("other.jar");
    try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(other))) {
      jar.putNextEntry(new JarEntry("com/sun/jna/Other.class"));
      jar.write(new byte[] {1, 2, 3});
    }
    assertThat(JnaBootLibrary.prepare(root, other)).as("a jar without the stub").isEmpty();
    assertThat(root).doesNotExist();
  }

  @Test
  void aJvmWithTheCopyLoadsItWithoutUnpacking(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("jna");
    String first = startPlatform("-D" + JnaBootLibrary.CACHE_PROPERTY + "=" + root);
    String second = startPlatform("-D" + JnaBootLibrary.CACHE_PROPERTY + "=" + root);
    Path stub = JnaBootLibrary.prepare(root, JNA).orElseThrow().resolve(JnaBootLibrary.LIBRARY);
    assertThat(first.lines()).as(first).contains("jnidispatch.path=" + stub);
    assertThat(second.lines()).as(second).contains("jnidispatch.path=" + stub);
    // JNA's own unpacking names a temporary file: the JDK seeds a SecureRandom for that
    assertThat(second.lines())
        .as(second)
        .noneMatch(l -> l.contains(" java.io.File$TempDirectory "))
        .noneMatch(l -> l.contains(" java.security.SecureRandom "));
  }

  @Test
  void whatTheUserSetForJnaIsKept(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("jna");
    String output =
        startPlatform(
            "-D" + JnaBootLibrary.CACHE_PROPERTY + "=" + root,
            "-D" + JnaBootLibrary.BOOT_PATH + "=/nonexistent/boot");
    assertThat(output.lines()).as(output).contains("boot=/nonexistent/boot");
    assertThat(output.lines()).anyMatch(l -> l.startsWith("jnidispatch.path="));
    assertThat(output).doesNotContain("jnidispatch.path=" + root);
    assertThat(root).doesNotExist();

    String relative = startPlatform("-D" + JnaBootLibrary.CACHE_PROPERTY + "=relative/dir");
    assertThat(relative.lines()).as(relative).contains("boot=null");
    assertThat(Path.of("relative")).doesNotExist();
  }

  private static byte[] jarStub() throws Exception {
    try (InputStream in =
        Platform.class
            .getClassLoader()
            .getResourceAsStream(
                "com/sun/jna/" + Platform.RESOURCE_PREFIX + "/" + JnaBootLibrary.LIBRARY)) {
      return in.readAllBytes();
    }
  }

  /** Starts the platform in a fresh JVM with {@code -verbose:class}; returns its output. */
  private static String startPlatform(String... flags) throws Exception {
    List<String> all = new ArrayList<>(List.of("-verbose:class"));
    all.addAll(List.of(flags));
    return FreshJvm.run(PlatformStartMain.class, all.toArray(String[]::new));
  }
}
