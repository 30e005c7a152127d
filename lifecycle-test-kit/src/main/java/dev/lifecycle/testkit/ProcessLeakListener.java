package dev.lifecycle.testkit;

import java.io.PrintStream;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Leak checks for tests the JUnit Platform runs on engines other than Jupiter (JUnit 4 through
 * Vintage, and others): the same {@link LeakOptions} (from the {@code lifecycle.leaks.*}
 * configuration parameters), the same {@link LeakTracker} and the same {@link LeakReport} as the
 * Jupiter extension, per test and per test class. Jupiter tests are left to {@link
 * ProcessLeakExtension}. Registered through {@code META-INF/services}; inactive unless {@value
 * LeakOptions#OTHER_ENGINES_PARAMETER} is {@code true}. Thread-safe.
 *
 * <p>A Platform listener cannot change a test's result, so here {@link LeakAction#FAIL} kills the
 * leaks and prints the report to standard error marked {@code LEAK FAILURE}, and {@link
 * LeakAction#WARN} prints it marked {@code LEAK WARNING} and kills nothing; neither turns a passed
 * JUnit 4 test red. Fail the build on such a report by checking the test output, or port the test
 * to Jupiter.
 */
public final class ProcessLeakListener implements TestExecutionListener {
  private static final String JUPITER = "[engine:junit-jupiter]";

  private final LeakOptions.Builder explicit;
  private final Consumer<LeakReport> sink;
  private final boolean forced;
  private final Map<String, LeakTracker> trackers = new ConcurrentHashMap<>();
  private volatile Function<String, Optional<String>> configuration = key -> Optional.empty();
  private volatile boolean enabled;

  /** The instance the Platform loads: options from the configuration parameters. */
  public ProcessLeakListener() {
    this(LeakOptions.builder(), report -> {}, false);
  }

  /** Always enabled, with {@code options} first, and every report also handed to {@code sink}. */
  ProcessLeakListener(LeakOptions.Builder options, Consumer<LeakReport> sink) {
    this(options, sink, true);
  }

  private ProcessLeakListener(
      LeakOptions.Builder options, Consumer<LeakReport> sink, boolean forced) {
    this.explicit = options;
    this.sink = sink;
    this.forced = forced;
  }

  @Override
  public void testPlanExecutionStarted(TestPlan plan) {
    configuration = plan.getConfigurationParameters()::get;
    enabled =
        forced
            || configuration
                .apply(LeakOptions.OTHER_ENGINES_PARAMETER)
                .map(Boolean::parseBoolean)
                .orElse(false);
  }

  @Override
  public void executionStarted(TestIdentifier id) {
    if (!covers(id)) {
      return;
    }
    LeakOptions options = explicit.build(configuration);
    boolean isClass =
        id.isContainer() && id.getSource().filter(ClassSource.class::isInstance).isPresent();
    if (isClass) {
      trackers.put(id.getUniqueId(), LeakTracker.start(options, id.getDisplayName()));
    } else if (id.isTest() && options.scope() == LeakScope.METHOD) {
      String name = id.getLegacyReportingName();
      Optional<LeakTracker> outer = id.getParentId().map(trackers::get);
      trackers.put(
          id.getUniqueId(),
          outer.isPresent()
              ? LeakTracker.start(options, name, outer.get())
              : LeakTracker.start(options, name));
    }
  }

  @Override
  public void executionFinished(TestIdentifier id, TestExecutionResult result) {
    LeakTracker tracker = trackers.remove(id.getUniqueId());
    if (tracker == null) {
      return;
    }
    LeakOptions options = explicit.build(configuration);
    try {
      LeakReport report = tracker.check(options.linger());
      if (report.isClean()) {
        return;
      }
      if (options.action() == LeakAction.FAIL) {
        report = tracker.kill(report);
      }
      print(System.err, options.action(), report);
      sink.accept(report);
    } finally {
      tracker.close();
    }
  }

  private boolean covers(TestIdentifier id) {
    return enabled && !id.getUniqueId().startsWith(JUPITER);
  }

  private static void print(PrintStream out, LeakAction action, LeakReport report) {
    out.println(
        "[lifecycle] "
            + (action == LeakAction.FAIL ? "LEAK FAILURE" : "LEAK WARNING")
            + " (reported by the Platform listener; the test result is unchanged): "
            + report.render());
  }
}
