package dev.lifecycle.record;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import dev.lifecycle.internal.LazyLogger;
import dev.lifecycle.internal.OwnerOnly;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/** File system checks that keep records and artifacts away from other users and symlinks. */
final class SafeFiles {
  private static final LazyLogger LOG = LazyLogger.of(SafeFiles.class);

  static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private SafeFiles() {}

  /**
   * Creates {@code dir} (mode 0700) if absent, then refuses it unless it is a real directory owned
   * by {@code user} that group and others cannot access. Its parents are not checked.
   */
  static Path ownerOnlyDirectory(Path dir, UserPrincipal user) throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    OwnerOnly.createDirectoryIfAbsent(abs);
    PosixFileAttributes attributes;
    try {
      attributes = Files.readAttributes(abs, PosixFileAttributes.class, NOFOLLOW_LINKS);
    } catch (UnsupportedOperationException e) {
      throw new UnsafeStoreException(
          abs + ": this file system has no POSIX owners and modes, so records cannot be protected");
    }
    if (attributes.isSymbolicLink()) {
      throw new UnsafeStoreException(
          abs
              + " is a symbolic link; records need a real directory only you can reach:"
              + " remove the link or choose another directory");
    }
    if (!attributes.isDirectory()) {
      throw new UnsafeStoreException(abs + " exists and is not a directory: choose another path");
    }
    if (!attributes.owner().equals(user)) {
      throw new UnsafeStoreException(
          abs
              + " is owned by "
              + attributes.owner().getName()
              + ", not by "
              + user.getName()
              + " who runs this program: choose a directory you own");
    }
    if (OwnerOnly.othersCanReach(attributes.permissions())) {
      throw new UnsafeStoreException(
          abs
              + " has mode "
              + PosixFilePermissions.toString(attributes.permissions())
              + " but group and others must have no access: run chmod 700 "
              + abs);
    }
    return abs;
  }

  /**
   * Removes one artifact if it is what the record says: reached without following any symbolic link
   * (each ancestor is opened relative to the previous one with O_NOFOLLOW), owned by {@code user},
   * of the expected type, and for a directory, empty.
   *
   * @return true when the path is gone (removed now or already absent), false when left behind
   */
  static boolean deleteArtifact(ArtifactKind kind, Path path, UserPrincipal user) {
    Path leaf = path.getFileName();
    if (leaf == null || path.getParent() == null) {
      return leftBehind(kind, path, "it is a file system root");
    }
    SecureDirectoryStream<Path> dir = null;
    try {
      DirectoryStream<Path> root = Files.newDirectoryStream(path.getRoot());
      if (!(root instanceof SecureDirectoryStream<Path> secure)) {
        root.close();
        return leftBehind(kind, path, "this platform cannot remove files without following links");
      }
      dir = secure;
      for (Path name : path.getParent()) {
        SecureDirectoryStream<Path> next = dir.newDirectoryStream(name, NOFOLLOW_LINKS);
        dir.close();
        dir = next;
      }
      PosixFileAttributes attributes =
          dir.getFileAttributeView(leaf, PosixFileAttributeView.class, NOFOLLOW_LINKS)
              .readAttributes();
      String mismatch = mismatch(kind, attributes, user);
      if (mismatch != null) {
        return leftBehind(kind, path, mismatch);
      }
      if (kind == ArtifactKind.DIRECTORY) {
        dir.deleteDirectory(leaf);
      } else {
        dir.deleteFile(leaf);
      }
      return true;
    } catch (NoSuchFileException gone) {
      return true;
    } catch (DirectoryNotEmptyException e) {
      return leftBehind(kind, path, "the directory is not empty");
    } catch (IOException e) {
      // ELOOP from an ancestor that is a symbolic link lands here too.
      return leftBehind(kind, path, e.toString());
    } finally {
      closeQuietly(dir);
    }
  }

  /**
   * Removes {@code dir} (a direct child of {@code parent}) and the files directly inside it,
   * without following any link: entries that are links are unlinked themselves, entries owned by
   * another user or that are directories are left (and so is {@code dir}).
   *
   * @return true when {@code dir} is gone
   */
  static boolean sweepDirectory(Path parent, Path dir, UserPrincipal user) {
    Path leaf = dir.getFileName();
    try (DirectoryStream<Path> root = Files.newDirectoryStream(parent)) {
      if (!(root instanceof SecureDirectoryStream<Path> secure)) {
        return leftBehind(ArtifactKind.DIRECTORY, dir, "cannot remove without following links");
      }
      PosixFileAttributes top =
          secure
              .getFileAttributeView(leaf, PosixFileAttributeView.class, NOFOLLOW_LINKS)
              .readAttributes();
      if (!top.isDirectory() || !top.owner().equals(user)) {
        return leftBehind(ArtifactKind.DIRECTORY, dir, "not a directory of " + user.getName());
      }
      try (SecureDirectoryStream<Path> inside = secure.newDirectoryStream(leaf, NOFOLLOW_LINKS)) {
        for (Path entry : inside) {
          Path name = entry.getFileName();
          PosixFileAttributes a =
              inside
                  .getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW_LINKS)
                  .readAttributes();
          if (!a.isDirectory() && (a.isSymbolicLink() || a.owner().equals(user))) {
            inside.deleteFile(name); // unlinks a link itself, never its target
          }
        }
      }
      secure.deleteDirectory(leaf);
      return true;
    } catch (NoSuchFileException gone) {
      return true;
    } catch (IOException | RuntimeException e) {
      return leftBehind(ArtifactKind.DIRECTORY, dir, e.toString());
    }
  }

  private static String mismatch(ArtifactKind kind, PosixFileAttributes a, UserPrincipal user) {
    if (a.isSymbolicLink()) {
      return "it is a symbolic link";
    }
    if (!a.owner().equals(user)) {
      return "it is owned by " + a.owner().getName();
    }
    boolean expected =
        switch (kind) {
          case SOCKET -> a.isOther();
          case PID_FILE, LOG_FILE -> a.isRegularFile();
          case DIRECTORY -> a.isDirectory();
        };
    return expected ? null : "it is not a " + kind.key();
  }

  private static boolean leftBehind(ArtifactKind kind, Path path, String why) {
    LOG.warn("Left {} {} in place: {}", kind.key(), path, why);
    return false;
  }

  private static void closeQuietly(DirectoryStream<Path> dir) {
    if (dir != null) {
      try {
        dir.close();
      } catch (IOException ignored) {
        // A read-only directory handle has nothing to flush.
      }
    }
  }
}
