package dev.lifecycle.broker;

import dev.lifecycle.record.ArtifactKind;
import dev.lifecycle.record.RecordStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The files one broker generation creates: its directory and, on a Unix socket, the socket in it.
 * Only these are ever removed, never the paths a record names (it may be a successor's).
 * Thread-safe.
 */
final class GenerationFiles {
  private volatile Path directory;
  private volatile Path socket;

  /** Named after this process, so a sweep can remove it if we die before any record names it. */
  Path create(RecordStore store, String name) throws IOException {
    directory = store.createGenerationDirectory(name);
    return directory;
  }

  /** The directory a Unix socket is bound in; from now on the socket counts among the files. */
  Path forSocket() {
    socket = directory.resolve(Listener.SOCKET_FILE);
    return directory;
  }

  /** What the record names. */
  Map<ArtifactKind, Path> artifacts() {
    Map<ArtifactKind, Path> artifacts = new EnumMap<>(ArtifactKind.class);
    if (socket != null) {
      artifacts.put(ArtifactKind.SOCKET, socket);
    }
    artifacts.put(ArtifactKind.DIRECTORY, directory);
    return artifacts;
  }

  /** The files created so far, deepest first. */
  List<Path> created() {
    List<Path> files = new ArrayList<>();
    if (socket != null) {
      files.add(socket);
    }
    if (directory != null) {
      files.add(directory);
    }
    return files;
  }
}
