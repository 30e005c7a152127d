package dev.lifecycle.posix;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import com.sun.jna.Platform;
import dev.lifecycle.internal.AtomicFile;
import dev.lifecycle.internal.OwnerOnly;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.CodeSource;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.CRC32;

/**
 * Gives JNA a kept copy of its native stub ({@code libjnidispatch}) so that a JVM's first JNA use
 * does not unpack it again. Unless told otherwise, JNA writes the stub from its jar to a fresh
 * temporary file in every JVM (the JDK's temporary-file names seed a {@code SecureRandom}: the
 * security providers start) and loads that: a measurable share of a short program's first spawn
 * (docs/PERFORMANCE.md, "Fast clients").
 *
 * <p>The copy lives in a directory named after the jar entry's CRC-32 and size, under {@code
 * lifecycle.jna.cache} / {@code LIFECYCLE_JNA_CACHE} or else the user's cache directory ({@code
 * $XDG_CACHE_HOME}, {@code ~/.cache}; {@code ~/Library/Caches} on macOS), in a {@code
 * dev.lifecycle/jna} directory that must be the user's own with mode 0700 (created so). Before JNA
 * is pointed at it ({@code jna.boot.library.path}), the copy's content is checked against the jar
 * entry's CRC-32 and size; a missing or different copy is written anew (whole, by rename). Anything
 * that does not hold (no writable cache, a foreign owner, a JNA that is not in a jar) leaves JNA's
 * own behaviour, which still works. A {@code jna.boot.library.path} the user set, {@code
 * jna.nounpack} or {@code jna.noclasspath} is left alone. Called before the first JNA class that
 * loads native code initialises; idempotent; concurrent JVMs write identical bytes and rename.
 */
final class JnaBootLibrary {
  static final String BOOT_PATH = "jna.boot.library.path";
  static final String CACHE_PROPERTY = "lifecycle.jna.cache";
  static final String CACHE_VARIABLE = "LIFECYCLE_JNA_CACHE";
  static final String LIBRARY = System.mapLibraryName("jnidispatch");

  private JnaBootLibrary() {}

  static void presetUnlessSet() {
    if (System.getProperty(BOOT_PATH) != null
        || Boolean.getBoolean("jna.nounpack")
        || Boolean.getBoolean("jna.noclasspath")
        || Platform.isWindows()) {
      return;
    }
    Optional<Path> root = cacheRoot();
    Optional<Path> jar = jarOf(Platform.class);
    Optional<Path> dir =
        root.isPresent() && jar.isPresent() ? prepare(root.get(), jar.get()) : Optional.empty();
    if (dir.isPresent()) { // no lambda: each is a class generated and linked
      System.setProperty(BOOT_PATH, dir.get().toString());
    }
  }

  /** The jar file {@code type} was loaded from, if it came from one on the file system. */
  static Optional<Path> jarOf(Class<?> type) {
    try {
      CodeSource source = type.getProtectionDomain().getCodeSource();
      URL location = source == null ? null : source.getLocation();
      if (location == null || !"file".equals(location.getProtocol())) {
        return Optional.empty();
      }
      return Optional.of(Path.of(location.toURI()));
    } catch (URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The directory holding a verified copy of the stub in the JNA jar {@code jar} under {@code
   * root}, written there if needed; empty when that cannot be done safely. A stub that is not in a
   * jar (JNA's classes in a directory) is loaded in place by JNA itself.
   */
  static Optional<Path> prepare(Path root, Path jar) {
    if (!Files.isRegularFile(jar)) {
      return Optional.empty();
    }
    try (JarFile file = new JarFile(jar.toFile(), false)) {
      JarEntry entry = file.getJarEntry("com/sun/jna/" + Platform.RESOURCE_PREFIX + "/" + LIBRARY);
      long crc = entry == null ? -1 : entry.getCrc();
      long size = entry == null ? -1 : entry.getSize();
      if (crc < 0 || size < 0) {
        return Optional.empty();
      }
      Path dir = root.resolve(Long.toHexString(crc) + "-" + size);
      Path copy = dir.resolve(LIBRARY);
      UserPrincipal user = OwnerOnly.currentUser();
      if (isOwnDirectory(root, user) && isOwnDirectory(dir, user) && holds(copy, crc, size)) {
        return Optional.of(dir);
      }
      byte[] bytes;
      try (InputStream in = file.getInputStream(entry)) {
        bytes = in.readAllBytes();
      }
      if (bytes.length != size || crc32(bytes) != crc) {
        return Optional.empty(); // the jar does not hold what its directory says
      }
      ownerOnlyDirectory(root, user);
      ownerOnlyDirectory(dir, user);
      AtomicFile.sweepTemps(copy, pid -> ProcessHandle.of(pid).isEmpty());
      AtomicFile.replace(copy, bytes);
      Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r-x------"));
      return holds(copy, crc, size) ? Optional.of(dir) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // JNA unpacks its stub as it always has
    }
  }

  /** The cache root the configuration or the platform's convention names, if any. */
  static Optional<Path> cacheRoot() {
    String configured = System.getProperty(CACHE_PROPERTY);
    if (configured == null) {
      configured = System.getenv(CACHE_VARIABLE);
    }
    if (configured != null) {
      Path path = Path.of(configured);
      return path.isAbsolute() ? Optional.of(path) : Optional.empty();
    }
    String home = System.getProperty("user.home");
    Path base;
    if (Platform.isMac()) {
      base = home == null ? null : Path.of(home, "Library", "Caches");
    } else {
      String xdg = System.getenv("XDG_CACHE_HOME");
      if (xdg != null && xdg.startsWith("/")) {
        base = Path.of(xdg);
      } else {
        base = home == null || !home.startsWith("/") ? null : Path.of(home, ".cache");
      }
    }
    return base == null
        ? Optional.empty()
        : Optional.of(base.resolve("dev.lifecycle").resolve("jna"));
  }

  /** Whether {@code copy} is a regular file (not a link) of exactly {@code size} bytes and CRC. */
  private static boolean holds(Path copy, long crc, long size) throws IOException {
    if (!Files.isRegularFile(copy, NOFOLLOW_LINKS) || Files.size(copy) != size) {
      return false;
    }
    return crc32(Files.readAllBytes(copy)) == crc;
  }

  private static long crc32(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes);
    return crc.getValue();
  }

  /** A real directory (not a link) owned by {@code user} that group and others cannot reach. */
  private static boolean isOwnDirectory(Path dir, UserPrincipal user) throws IOException {
    if (!Files.exists(dir, NOFOLLOW_LINKS)) {
      return false;
    }
    PosixFileAttributes attributes =
        Files.readAttributes(dir, PosixFileAttributes.class, NOFOLLOW_LINKS);
    if (!attributes.isDirectory() || !attributes.owner().equals(user)) {
      return false;
    }
    return !OwnerOnly.othersCanReach(attributes.permissions());
  }

  /** Creates {@code dir} 0700 if absent; throws unless it then is {@link #isOwnDirectory}. */
  private static void ownerOnlyDirectory(Path dir, UserPrincipal user) throws IOException {
    OwnerOnly.createDirectoryIfAbsent(dir);
    if (!isOwnDirectory(dir, user)) {
      throw new IOException(dir + " is not a directory of the user's own with mode 0700");
    }
  }
}
