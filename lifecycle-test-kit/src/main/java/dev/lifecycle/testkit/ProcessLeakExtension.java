package dev.lifecycle.testkit;

import java.lang.reflect.AnnotatedElement;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JUnit Jupiter extension that fails a test which leaves a process running, reports what was left
 * on which evidence, and kills it so the next test starts clean. Thread-safe: state lives in the
 * {@link ExtensionContext.Store}, so one instance serves any number of tests.
 *
 * <p>Three ways to turn it on, all producing one {@link LeakOptions} value:
 *
 * <ul>
 *   <li>{@link NoProcessLeaks @NoProcessLeaks} on a class or method;
 *   <li>programmatically, {@code @RegisterExtension static ProcessLeakExtension leaks =
 *       ProcessLeakExtension.with(LeakOptions.builder().linger(Duration.ofSeconds(1)));}
 *   <li>for a whole suite: {@code junit.jupiter.extensions.autodetection.enabled=true} (the kit
 *       registers this class in {@code META-INF/services}); the {@code lifecycle.leaks.*}
 *       configuration parameters then set the options.
 * </ul>
 *
 * <p>With the default {@link LeakScope#METHOD} every test method is checked (a leak fails that
 * method) and so is the class as a whole (what {@code @BeforeAll}/static fixtures leave fails the
 * class). {@link LeakAction#FAIL} kills every reported process and lists each kill in the failure;
 * {@link LeakAction#WARN} logs the report, publishes it as a report entry and kills nothing.
 *
 * <p>How processes are attributed (the tier, named in every report) is {@link LeakTracker}'s job.
 * Tests of one JVM that run concurrently share the JVM: only one check at a time can hold the
 * cgroup tier, the others fall back to evidence and say so, and the holder notes that a concurrent
 * test may have forked into its cgroup. Use {@link LeakScope#CLASS} with parallel methods.
 */
public final class ProcessLeakExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  /** The default linger: {@link LeakOptions#DEFAULT_LINGER}. */
  public static final Duration DEFAULT_LINGER = LeakOptions.DEFAULT_LINGER;

  private static final Logger LOG = LoggerFactory.getLogger(ProcessLeakExtension.class);
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ProcessLeakExtension.class);
  private static final String TRACKER = "tracker";
  private static final String PARALLEL = "junit.jupiter.execution.parallel.enabled";

  /** Options set programmatically; empty when they come from the annotation and configuration. */
  private final Optional<LeakOptions.Builder> configured;

  /** Used by {@code @ExtendWith} and autodetection: annotation, then configuration parameters. */
  public ProcessLeakExtension() {
    this.configured = Optional.empty();
  }

  private ProcessLeakExtension(LeakOptions.Builder options) {
    this.configured = Optional.of(options);
  }

  /**
   * An extension with {@code options}; what they leave unset comes from the configuration
   * parameters. The builder is read at every test: do not change it after registering.
   *
   * @param options the options set explicitly
   * @return an extension to register with {@code @RegisterExtension}
   */
  public static ProcessLeakExtension with(LeakOptions.Builder options) {
    return new ProcessLeakExtension(Objects.requireNonNull(options, "options"));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    LeakOptions options = options(context);
    begin(context, options, context.getRequiredTestClass().getSimpleName(), Optional.empty());
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    LeakOptions options = options(context);
    if (options.scope() != LeakScope.METHOD) {
      return;
    }
    String name =
        context.getRequiredTestClass().getSimpleName()
            + "."
            + context.getRequiredTestMethod().getName()
            + "() ["
            + context.getDisplayName()
            + "]";
    begin(context, options, name, enclosing(context));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    end(context, options(context));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    end(context, options(context));
  }

  private static Optional<LeakTracker> enclosing(ExtensionContext context) {
    for (Optional<ExtensionContext> c = context.getParent();
        c.isPresent();
        c = c.get().getParent()) {
      LeakTracker t = c.get().getStore(NAMESPACE).get(key(c.get()), LeakTracker.class);
      if (t != null) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  private static void begin(
      ExtensionContext context, LeakOptions options, String name, Optional<LeakTracker> outer) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    if (store.get(key(context), LeakTracker.class) != null) {
      return; // registered twice (annotation and autodetection): the first one checks
    }
    LeakTracker tracker =
        outer.isPresent()
            ? LeakTracker.start(options, name, outer.get())
            : LeakTracker.start(options, name);
    if (context.getConfigurationParameter(PARALLEL).map(Boolean::parseBoolean).orElse(false)
        && options.scope() == LeakScope.METHOD
        && context.getTestMethod().isPresent()) {
      tracker.addCaveat(
          "JUnit parallel execution is enabled: with method scope a leak may come from a test"
              + " running at the same time; use @NoProcessLeaks(scope = CLASS)");
    }
    store.put(key(context), tracker);
  }

  private static void end(ExtensionContext context, LeakOptions options) {
    // Only the context that began tracking holds the tracker in its own store: a parent's tracker
    // (the class) is not ended by a method's afterEach.
    LeakTracker tracker = context.getStore(NAMESPACE).remove(key(context), LeakTracker.class);
    if (tracker == null) {
      return;
    }
    try {
      LeakReport report = tracker.check(options.linger());
      if (report.isClean()) {
        return;
      }
      if (options.action() == LeakAction.FAIL) {
        throw new AssertionError(tracker.kill(report).render());
      }
      String text = report.render();
      LOG.warn("{}", text);
      context.publishReportEntry("process-leaks", text);
    } finally {
      tracker.close();
    }
  }

  /** Per context: a store lookup also sees the parents' entries. */
  private static String key(ExtensionContext context) {
    return TRACKER + context.getUniqueId();
  }

  private LeakOptions options(ExtensionContext context) {
    if (configured.isPresent()) {
      return configured.get().build(context::getConfigurationParameter);
    }
    Optional<NoProcessLeaks> found =
        context
            .getTestMethod()
            .flatMap(m -> AnnotationSupport.findAnnotation(m, NoProcessLeaks.class));
    if (found.isEmpty()) {
      for (Class<?> c = context.getTestClass().orElse(null);
          c != null && found.isEmpty();
          c = c.getEnclosingClass()) {
        found = AnnotationSupport.findAnnotation((AnnotatedElement) c, NoProcessLeaks.class);
      }
    }
    return found
        .map(LeakOptions.Builder::of)
        .orElseGet(LeakOptions::builder)
        .build(context::getConfigurationParameter);
  }
}
