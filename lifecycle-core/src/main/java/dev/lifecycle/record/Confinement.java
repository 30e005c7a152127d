package dev.lifecycle.record;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where a record's artifacts may lie, so that reclaiming a hostile or mistaken record can only
 * delete what an owner of that name created in the store (see {@link
 * RecordStore#createGenerationDirectory}).
 */
final class Confinement {
  private Confinement() {}

  /** Why some artifact of {@code record} is not confined, or null when all are. */
  static String check(Path store, String name, SessionRecord record) {
    for (Map.Entry<ArtifactKind, Path> artifact : record.artifacts().entrySet()) {
      String why = check(store, name, record, artifact.getKey(), artifact.getValue());
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  /** Why {@code path} may not be {@code record}'s {@code kind} artifact, or null when it may. */
  static String check(Path store, String name, SessionRecord record, ArtifactKind kind, Path path) {
    if (ownedByName(store, name, path)) {
      return null;
    }
    Path home = record.artifacts().get(ArtifactKind.DIRECTORY);
    if (kind != ArtifactKind.DIRECTORY
        && home != null
        && ownedByName(store, name, home)
        && home.equals(path.getParent())) {
      return null;
    }
    return kind.key()
        + " "
        + path
        + " is outside the store's files of "
        + name
        + " (a direct child of "
        + store
        + " named "
        + name
        + ".*, or a file directly in the record's own directory)";
  }

  /** A direct child of the store named {@code <name>.*} that is not one of the store's files. */
  private static boolean ownedByName(Path store, String name, Path path) {
    if (!store.equals(path.getParent())) {
      return false;
    }
    String leaf = path.getFileName().toString();
    if (!leaf.startsWith(name + ".")) {
      return false;
    }
    String rest = leaf.substring(name.length() + 1);
    return !rest.equals("record")
        && !rest.equals("lock")
        && !rest.equals("start-lock")
        && !rest.startsWith("corrupt-")
        && !rest.isEmpty();
  }
}
