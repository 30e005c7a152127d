package dev.lifecycle.inventory;

import dev.lifecycle.process.ProcessInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** A tree as first seen: how it was found, its name, and its processes' rows. */
record Candidate(
    FoundTree.Kind kind,
    String id,
    Optional<Path> cgroup,
    String cookie,
    List<ProcessInfo> members) {}
