package dev.lifecycle.internal;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Set;

/**
 * Directories only their owner can reach (mode 0700): the record store's and the native stub's
 * cache. Whether an existing one is acceptable is each caller's check, on attributes read without
 * following links. Stateless and thread-safe.
 */
public final class OwnerOnly {
  /** {@code rwx------}, unmodifiable. */
  public static final Set<PosixFilePermission> DIRECTORY_MODE =
      Set.copyOf(PosixFilePermissions.fromString("rwx------"));

  private OwnerOnly() {}

  /**
   * The user this JVM runs as, as the file system names owners.
   *
   * @return the principal of {@code user.name}
   * @throws IOException if the file system does not know that user
   */
  public static UserPrincipal currentUser() throws IOException {
    return FileSystems.getDefault()
        .getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
  }

  /**
   * Creates {@code dir} with mode 0700, and its missing parents, unless something is at that path.
   * One that another process creates first is left as it is, for the caller's check.
   *
   * @param dir an absolute path with a parent
   * @throws IOException if it cannot be created
   */
  public static void createDirectoryIfAbsent(Path dir) throws IOException {
    if (Files.exists(dir, NOFOLLOW_LINKS)) {
      return;
    }
    Files.createDirectories(dir.getParent());
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
      Files.setPosixFilePermissions(dir, DIRECTORY_MODE); // the umask may have removed bits
    } catch (FileAlreadyExistsException raced) {
      // created first by another process: the caller checks it like any existing directory
    }
  }

  /**
   * Whether a directory of these permissions lets group or others in.
   *
   * @param permissions a directory's permissions
   * @return true when any permission is outside {@link #DIRECTORY_MODE}
   */
  public static boolean othersCanReach(Set<PosixFilePermission> permissions) {
    Set<PosixFilePermission> foreign = EnumSet.copyOf(permissions);
    foreign.removeAll(DIRECTORY_MODE);
    return !foreign.isEmpty();
  }
}
