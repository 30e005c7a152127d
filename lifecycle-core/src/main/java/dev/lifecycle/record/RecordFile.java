package dev.lifecycle.record;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.READ;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.util.Arrays;
import java.util.Objects;

/** One look at a record file: its bytes, or why they cannot be a record. Immutable. */
record RecordFile(byte[] bytes, String refusal) {
  /** Records are a few hundred bytes; anything this large is not one. */
  static final int MAX_BYTES = 64 * 1024;

  SessionRecord parse(String clock) throws RecordFormat.Unreadable {
    if (refusal != null) {
      throw new RecordFormat.Unreadable(refusal, false);
    }
    return RecordFormat.read(bytes, clock);
  }

  /** Whether nobody replaced the file since (checked under the lock before acting on it). */
  boolean sameAs(RecordFile now) {
    return now != null && Arrays.equals(bytes, now.bytes) && Objects.equals(refusal, now.refusal);
  }

  /**
   * Reads a record file without following links; null when there is none. Only a regular file is
   * opened (a FIFO would block open() until a writer comes), and at most {@link #MAX_BYTES} of it
   * is read. A same-user process that swaps a FIFO in between the check and the open can still
   * stall a reader; nobody else can write the 0700 directory.
   */
  static RecordFile read(Path file, UserPrincipal user) throws IOException {
    PosixFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, PosixFileAttributes.class, NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
    if (attributes.isSymbolicLink()) {
      return new RecordFile(new byte[0], "it is a symbolic link to " + readLinkQuietly(file));
    }
    if (!attributes.isRegularFile()) {
      return new RecordFile(
          new byte[0], "it is not a regular file (" + kindOf(attributes) + "); records are files");
    }
    if (!attributes.owner().equals(user)) {
      return new RecordFile(
          new byte[0],
          "it is owned by " + attributes.owner().getName() + ", not by " + user.getName());
    }
    try (FileChannel channel = FileChannel.open(file, READ, NOFOLLOW_LINKS)) {
      long size = channel.size();
      if (size > MAX_BYTES) {
        return new RecordFile(new byte[0], "it has " + size + " bytes; records are small");
      }
      ByteBuffer buffer = ByteBuffer.allocate((int) size);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // read until full or end of file
      }
      return new RecordFile(Arrays.copyOf(buffer.array(), buffer.position()), null);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      if (Files.isSymbolicLink(file)) { // replaced by a link since the check: O_NOFOLLOW refused
        return new RecordFile(new byte[0], "it is a symbolic link to " + readLinkQuietly(file));
      }
      throw e;
    }
  }

  private static String kindOf(BasicFileAttributes a) {
    return a.isDirectory() ? "a directory" : "a FIFO, socket or device";
  }

  private static String readLinkQuietly(Path link) {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (IOException e) {
      return "?";
    }
  }
}
