package dev.lifecycle.process.cgroup;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Map;

/** Names the errno behind a JDK file exception, so a reason reads "EACCES (Permission denied)". */
final class Errno {
  private static final Map<String, String> NAMES =
      Map.ofEntries(
          Map.entry("Permission denied", "EACCES"),
          Map.entry("Operation not permitted", "EPERM"),
          Map.entry("No such file or directory", "ENOENT"),
          Map.entry("No such process", "ESRCH"),
          Map.entry("Device or resource busy", "EBUSY"),
          Map.entry("File exists", "EEXIST"),
          Map.entry("Read-only file system", "EROFS"),
          Map.entry("Invalid argument", "EINVAL"),
          Map.entry("Operation not supported", "EOPNOTSUPP"),
          Map.entry("No space left on device", "ENOSPC"),
          Map.entry("Resource temporarily unavailable", "EAGAIN"),
          Map.entry("Directory not empty", "ENOTEMPTY"));

  private Errno() {}

  /** {@code "EACCES (Permission denied)"} for what {@code e} reports. */
  static String describe(IOException e) {
    String reason = e instanceof FileSystemException fse ? fse.getReason() : e.getMessage();
    if (reason == null) {
      if (e instanceof AccessDeniedException) {
        reason = "Permission denied";
      } else if (e instanceof NoSuchFileException) {
        reason = "No such file or directory";
      } else if (e instanceof FileAlreadyExistsException) {
        reason = "File exists";
      } else {
        return e.getClass().getSimpleName();
      }
    }
    String name = NAMES.get(reason);
    return name == null ? reason : name + " (" + reason + ")";
  }

  /** An exception saying {@code "<what>: <errno>"}, with {@code e} as its cause. */
  static IOException wrap(String what, IOException e) {
    return new IOException(what + ": " + describe(e), e);
  }
}
