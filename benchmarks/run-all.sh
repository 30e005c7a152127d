#!/bin/sh
# Runs every benchmark and harness of docs/PERFORMANCE.md in sequence and prints the results.
# Usage (from the repository root):
#   ./mvnw -q -Pbenchmarks -pl benchmarks -am package -DskipTests && sh benchmarks/run-all.sh
# With BEFORE=<checkout of an older commit> it also runs benchmarks/whole-process.sh against it.
set -eu
JAR=benchmarks/target/benchmarks.jar
JMH_SUMMARY='^\[table\]|^\[zombie check\]|^Benchmark |^[A-Za-z]+Benchmark\.[A-Za-z]+ +(N/A|[0-9]+) +avgt'
echo "== machine: nproc $(nproc), kernel $(uname -r), $(java -version 2>&1 | head -2 | tail -1)"
echo "== runaway guard"
java -cp $JAR dev.lifecycle.bench.GuardHarness 100 10 20 session 2,5,10
java -cp $JAR dev.lifecycle.bench.GuardHarness 100 10 20 auto 5
if [ -n "${BEFORE:-}" ]; then # a checkout of the commit to compare with, see whole-process.sh
  echo "== whole processes: CLI and spawn-wait-close-exit, before/after"
  sh benchmarks/whole-process.sh "$BEFORE"
fi
echo "== load: $(cat /proc/loadavg)"
echo "== JMH: spawn, probe, probe alternatives, snapshot"
java -jar $JAR 'SpawnBenchmark|ProbeBenchmark|ProbeAlternativesBenchmark|SnapshotBenchmark' \
  -f 1 -wi 3 -i 5 2>&1 | grep -E "$JMH_SUMMARY"
echo "== spawn with a touched heap"
for gib in 0 2 8; do
  java -Xms10g -Xmx10g -cp $JAR dev.lifecycle.bench.HeapSpawnHarness $gib 300 | grep '^\[heap'
done
echo "== tree termination"
java -Dorg.slf4j.simpleLogger.log.dev.lifecycle.tree.Termination=debug \
  -cp $JAR dev.lifecycle.bench.TreeTerminateHarness term200 5 200 2>&1 | grep -v '^  round'
java -Dorg.slf4j.simpleLogger.log.dev.lifecycle.tree.Termination=debug \
  -cp $JAR dev.lifecycle.bench.TreeTerminateHarness kill1000 5 2>&1 | grep -v '^  round'
echo "== idle supervisors"
java -cp $JAR dev.lifecycle.bench.SupervisorHarness 1000 10 5 baseline,lifecycle,jdk
java -cp $JAR dev.lifecycle.bench.SupervisorHarness 10000 10 5 lifecycle,jdk
if [ -n "${BEFORE:-}" ]; then # a checkout of the commit to compare with, see whole-process.sh
  echo "== whole processes: CLI and spawn-wait-close-exit, before/after"
  sh benchmarks/whole-process.sh "$BEFORE"
fi
echo "== load: $(cat /proc/loadavg)"
