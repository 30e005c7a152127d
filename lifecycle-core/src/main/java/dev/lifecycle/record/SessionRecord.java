package dev.lifecycle.record;

import dev.lifecycle.internal.Ascii;
import dev.lifecycle.probe.Endpoint;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.process.ProcessPlatform;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Who serves a session, where, and what goes away with it. Immutable and thread-safe.
 *
 * <p>{@code owner} is an identity as the platform reads it ({@link ProcessPlatform#self()}, {@link
 * ProcessPlatform#identify}), its start time in the platform's units. A {@link RecordStore} writes
 * its platform's {@link ProcessPlatform#identityClock() identity clock} next to it, so no caller
 * names the clock: a store on the same clock compares start times and boot ids (a reused pid or
 * another boot proves the owner gone), and a store on another clock reads the owner by pid only.
 *
 * @param owner the process that serves the endpoint and owns the artifacts
 * @param endpoint where clients connect
 * @param artifacts absolute, normalized paths the owner created, by kind
 * @param token random and unique per generation: compare-and-clear matches it, not the pid
 * @param created when this generation was created
 */
public record SessionRecord(
    ProcessIdentity owner,
    Endpoint endpoint,
    Map<ArtifactKind, Path> artifacts,
    String token,
    Instant created) {

  /**
   * The record file format this library writes and the newest it reads (2: with an end marker that
   * detects truncation; format 1 is still read).
   */
  public static final int FORMAT_VERSION = 2;

  /**
   * Checks the components and copies {@code artifacts}.
   *
   * @param owner the process that serves the endpoint and owns the artifacts
   * @param endpoint where clients connect
   * @param artifacts absolute, normalized paths the owner created, by kind
   * @param token random and unique per generation: compare-and-clear matches it, not the pid
   * @param created when this generation was created
   * @throws NullPointerException if a component or an artifact path is {@code null}
   * @throws IllegalArgumentException if {@code token} is not 8-64 of [A-Za-z0-9-] or an artifact
   *     path is not absolute and normalized
   */
  public SessionRecord {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(created, "created");
    Objects.requireNonNull(token, "token");
    if (token.length() < 8 || token.length() > 64 || !Ascii.isWord(token, 0, "-")) {
      throw new IllegalArgumentException("token must be 8-64 of [A-Za-z0-9-]: " + token);
    }
    EnumMap<ArtifactKind, Path> copy = new EnumMap<>(ArtifactKind.class);
    for (Map.Entry<ArtifactKind, Path> artifact : artifacts.entrySet()) {
      ArtifactKind kind = artifact.getKey();
      Path path = Objects.requireNonNull(artifact.getValue(), kind.key());
      if (!path.isAbsolute() || !path.equals(path.normalize())) {
        throw new IllegalArgumentException(
            kind.key() + " must be absolute and normalized: " + path);
      }
      copy.put(kind, path);
    }
    artifacts = Collections.unmodifiableMap(copy);
  }

  /**
   * A new generation: a fresh random token and the current time. Create one per publish, so a
   * predecessor's compare-and-clear can never match a successor's record.
   *
   * @param owner the process that serves the endpoint and owns the artifacts
   * @param endpoint where clients connect
   * @param artifacts absolute, normalized paths the owner created, by kind
   * @return the new record
   */
  public static SessionRecord newGeneration(
      ProcessIdentity owner, Endpoint endpoint, Map<ArtifactKind, Path> artifacts) {
    return new SessionRecord(
        owner, endpoint, artifacts, dev.lifecycle.internal.Unguessable.uuid(), Instant.now());
  }

  /**
   * A new generation owned by this JVM, as {@code platform} identifies it.
   *
   * @param platform identifies this JVM
   * @param endpoint where clients connect
   * @param artifacts absolute, normalized paths the owner created, by kind
   * @return the new record
   */
  public static SessionRecord newGeneration(
      ProcessPlatform platform, Endpoint endpoint, Map<ArtifactKind, Path> artifacts) {
    return newGeneration(platform.self(), endpoint, artifacts);
  }
}
