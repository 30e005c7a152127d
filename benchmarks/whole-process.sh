#!/bin/sh
# Whole-process figures of docs/PERFORMANCE.md ("Fast clients"): the example CLI and a
# spawn-wait-close-exit program, before and after, side by side with `java Hello` and
# ProcessBuilder, interleaved in one run.
# Usage (from the repository root; BEFORE is a checkout of the commit to compare with):
#   git worktree add /tmp/fc-baseline d5a200b
#   sh benchmarks/whole-process.sh /tmp/fc-baseline [groups] [rounds]
# Nothing is installed; the before-build uses a private Maven repository (MAVEN_REPO, default
# ./.m2repo, seeded from ~/.m2) so its SNAPSHOT resolution never touches the shared one.
set -eu
BEFORE=$1
GROUPS=${2:-classes,warm,spawn,leave,cold}
ROUNDS=${3:-15}
REPO=${MAVEN_REPO:-$PWD/.m2repo}
./mvnw -B -q -o -Pbenchmarks -pl examples,benchmarks -am package \
  -DskipTests -Dspotless.check.skip=true
(cd "$BEFORE" && ./mvnw -B -q -o -Dmaven.repo.local="$REPO" -pl examples -am package \
  -DskipTests -Dspotless.check.skip=true)
jars() { # the examples jar first, then core, posix and the runtime dependencies
  printf '%s' "$1/examples/target/lifecycle-examples-0.1.0-SNAPSHOT.jar"
  for m in lifecycle-core lifecycle-posix; do printf ':%s' "$1/$m/target/$m-0.1.0-SNAPSHOT.jar"; done
  printf ':%s' "$REPO/net/java/dev/jna/jna/5.19.1/jna-5.19.1.jar"
  printf ':%s' "$REPO/org/slf4j/slf4j-api/2.0.20/slf4j-api-2.0.20.jar"
  printf ':%s' "$REPO/org/slf4j/slf4j-simple/2.0.20/slf4j-simple-2.0.20.jar"
}
libs() { # what a user's program has: the library and its runtime dependencies, no examples jar
  jars "$1" | cut -d: -f2-
}
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java # the launcher honours JAVA_HOME too
echo "== $($JAVA -version 2>&1 | head -1), nproc $(nproc), kernel $(uname -r)"
$JAVA -Dbefore.cp="$(jars "$BEFORE")" \
  -Dbefore.libcp="$(libs "$BEFORE")" -Dafter.libcp="$(libs "$PWD")" \
  -Dlauncher="$PWD/examples/target/lifecycle-example" -Dbench.classes="$PWD/benchmarks/target/classes" \
  -cp benchmarks/target/benchmarks.jar dev.lifecycle.bench.WholeProcessHarness "$GROUPS" "$ROUNDS"
