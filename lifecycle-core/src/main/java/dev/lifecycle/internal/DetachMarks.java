package dev.lifecycle.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Marks of trees their owner let go on purpose (a daemon meant to outlive it), kept as empty-named
 * files in a directory per user, one per tree, named by the tree's cookie or its cgroup's name
 * (both unique per tree). A mark only ever keeps a tree from being swept, so a forged one can hide
 * a tree from a sweep but never get one ended; a mark that cannot be written safely is an error to
 * the owner, who would otherwise believe its daemon safe. Stateless, thread-safe.
 *
 * <p>Where: the system property {@value #DIR_PROPERTY}, else the environment variable {@value
 * #DIR_ENV}, else {@code <java.io.tmpdir>/lifecycle-detached-<uid>}. Readers look in that directory
 * and in every {@code lifecycle-detached-*} directory of {@code java.io.tmpdir}. A mark outlives
 * its tree until a sweep ({@link #remove}) proves the tree has no live member.
 */
public final class DetachMarks {
  /** System property naming the directory marks are written to. */
  public static final String DIR_PROPERTY = "lifecycle.detached.dir";

  /** Environment variable naming the directory when the property is unset. */
  public static final String DIR_ENV = "LIFECYCLE_DETACHED_DIR";

  private static final String DEFAULT_PREFIX = "lifecycle-detached-";

  private static final Setting<String> DIR = Setting.of(DIR_PROPERTY, DIR_ENV, "", String::strip);

  private DetachMarks() {}

  /**
   * The directory this process writes marks to.
   *
   * @return the configured directory, or the default one for this user
   */
  public static Path directory() {
    String configured = DIR.resolve();
    if (!configured.isEmpty()) {
      return Path.of(configured);
    }
    return Path.of(System.getProperty("java.io.tmpdir"), DEFAULT_PREFIX + userTag());
  }

  /**
   * Marks the tree {@code key} as detached, creating the directory owner-only (0700).
   *
   * @param key the tree's cookie or cgroup name: 8-200 of [A-Za-z0-9._-]
   * @param text one line saying who let it go and when
   * @throws IOException when the directory or the mark cannot be written, or the directory is a
   *     symbolic link or not this user's
   * @throws IllegalArgumentException when {@code key} is not a valid key
   */
  public static void mark(String key, String text) throws IOException {
    check(key);
    Path dir = directory();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectories(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectories(dir);
      }
    }
    if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("detach marks directory is not a directory: " + dir);
    }
    Object owner = Files.getAttribute(dir, "posix:owner", LinkOption.NOFOLLOW_LINKS);
    Path probe = Files.createTempFile(dir, ".owner-check", ".tmp");
    try {
      Object mine = Files.getAttribute(probe, "posix:owner", LinkOption.NOFOLLOW_LINKS);
      if (!mine.equals(owner)) {
        throw new IOException("detach marks directory " + dir + " belongs to " + owner);
      }
    } finally {
      Files.deleteIfExists(probe);
    }
    AtomicFile.replace(dir.resolve(key), (text + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Removes the mark of {@code key} from this process's directory, if there is one.
   *
   * @param key the tree's cookie or cgroup name
   * @throws IOException when it exists and cannot be removed
   */
  public static void unmark(String key) throws IOException {
    check(key);
    Files.deleteIfExists(directory().resolve(key));
  }

  /**
   * Every key marked in the directories readers look in; reads only, creates nothing.
   *
   * @return the marked keys; directories that cannot be read add none
   */
  public static Set<String> all() {
    Set<String> keys = new HashSet<>();
    for (Path dir : directories()) {
      collect(dir, keys);
    }
    return keys;
  }

  /**
   * Removes the marks of {@code keys} from every directory readers look in, where this user may.
   * Callers pass only keys whose tree has no live member left, so no tree loses what its mark kept
   * it from.
   *
   * @param keys the keys whose marks go
   */
  public static void remove(Set<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    for (Path dir : directories()) {
      for (String key : keys) {
        if (!isKey(key)) {
          continue;
        }
        try {
          Files.deleteIfExists(dir.resolve(key));
        } catch (IOException | RuntimeException e) {
          // another user's directory: that user's own sweep removes it
        }
      }
    }
  }

  /** This process's directory and every {@code lifecycle-detached-*} one; never a symbolic link. */
  private static Set<Path> directories() {
    Set<Path> dirs = new LinkedHashSet<>();
    dirs.add(directory());
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    try (DirectoryStream<Path> found = Files.newDirectoryStream(tmp, DEFAULT_PREFIX + "*")) {
      found.forEach(dirs::add);
    } catch (IOException | RuntimeException e) {
      // an unreadable tmpdir hides marks: those trees would look not detached, and are then
      // still only ended when their owner is proven gone
    }
    dirs.removeIf(dir -> !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS));
    return dirs;
  }

  private static void collect(Path dir, Set<String> keys) {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (!name.startsWith(".") && !name.endsWith(AtomicFile.TEMP_SUFFIX)) {
          keys.add(name);
        }
      }
    } catch (IOException | RuntimeException e) {
      // another user's directory: its marks are that user's trees, which this user cannot end
    }
  }

  private static void check(String key) {
    if (!isKey(key)) {
      throw new IllegalArgumentException("not a tree key: " + key);
    }
  }

  private static boolean isKey(String key) {
    return key.length() >= 8 && key.length() <= 200 && Ascii.isWord(key, 0, "._-");
  }

  private static String userTag() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return uid.toString();
    } catch (IOException | RuntimeException e) {
      String name = System.getProperty("user.name", "user");
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < name.length() && out.length() < 32; i++) {
        char c = name.charAt(i);
        out.append(Character.isLetterOrDigit(c) && c < 128 ? c : '_');
      }
      return out.toString();
    }
  }
}
