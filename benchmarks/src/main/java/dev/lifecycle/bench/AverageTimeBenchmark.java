package dev.lifecycle.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The settings every JMH benchmark here shares, inherited by its subclasses (JMH's annotations are
 * {@code @Inherited}): the benchmark is its own state, the average time of one call in ns, one
 * fork, 3 warm-up and 5 measured iterations of 1 s. A subclass that times slower calls overrides
 * the unit and the iterations on its own class.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public abstract class AverageTimeBenchmark {}
