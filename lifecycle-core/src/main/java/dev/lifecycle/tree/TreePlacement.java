package dev.lifecycle.tree;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a tree will be known by, decided before its leader starts: the cookie every process of it
 * inherits and, in the CGROUP tier, its cgroup (already created, still empty). A spawn hook gets it
 * so it can register the tree (e.g. with a tether) before there is anything to lose. Immutable and
 * thread-safe.
 *
 * @param cookie the {@link dev.lifecycle.process.SpawnOptions#COOKIE_VARIABLE} value
 * @param cgroup the directory of the tree's cgroup (CGROUP tier), else empty
 */
public record TreePlacement(String cookie, Optional<Path> cgroup) {
  /**
   * Checks the components.
   *
   * @param cookie the {@link dev.lifecycle.process.SpawnOptions#COOKIE_VARIABLE} value
   * @param cgroup the directory of the tree's cgroup (CGROUP tier), else empty
   * @throws NullPointerException if a component is {@code null}
   */
  public TreePlacement {
    Objects.requireNonNull(cookie, "cookie");
    Objects.requireNonNull(cgroup, "cgroup");
  }
}
