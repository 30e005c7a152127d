package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessPlatform;
import java.lang.reflect.AnnotatedElement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JUnit 5 extension that fails a test which leaves a process running, reports what was left and
 * kills it so the next test starts clean.
 *
 * <p>Declarative: {@link NoProcessLeaks @NoProcessLeaks} on a class or method. Programmatic:
 *
 * <pre>{@code
 * @RegisterExtension
 * static ProcessLeakExtension leaks =
 *     ProcessLeakExtension.builder().linger(Duration.ofSeconds(1)).ignore("my-daemon").build();
 * }</pre>
 *
 * <p>How it works: a baseline of the process table before each test (or class), a background
 * sampler of this JVM's descendants during it, and after it a check that lingers up to the linger
 * time (polling with backoff) for new processes to exit by themselves. What is new (not in the
 * baseline by pid and start time), still running (zombies are not leaks) and attributable on
 * evidence (see {@link LeakTracker}) is reported with pid, command line, parent chain, age, CPU
 * time and state, then killed with an identity-checked SIGKILL. State lives in the {@link
 * ExtensionContext.Store}, never in fields, so one extension instance serves any number of tests.
 *
 * <p>Limits: with JUnit parallel execution, tests of one JVM run at the same time and {@link
 * LeakScope#METHOD} may blame a leak on a concurrently running test (the report says so when
 * parallel execution is enabled); use {@link LeakScope#CLASS}, or run leak-checked classes in the
 * same thread. An escapee that was never seen as a descendant, carries no cookie and shares no
 * group or session with anything attributed is not found.
 */
public final class ProcessLeakExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  /**
   * Linger before calling a process leaked: covers a typical SIGTERM grace and PID 1's lazy orphan
   * reaping (up to ~2 s on some CI boxes); a clean test never waits, the check returns at once.
   */
  public static final Duration DEFAULT_LINGER = Duration.ofSeconds(3);

  private static final Logger LOG = LoggerFactory.getLogger(ProcessLeakExtension.class);
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ProcessLeakExtension.class);
  private static final String TRACKER = "tracker";
  private static final String PARALLEL = "junit.jupiter.execution.parallel.enabled";

  /** Options set programmatically, or null when they come from the annotation. */
  private final Options configured;

  /** Used by {@code @ExtendWith}: options come from {@link NoProcessLeaks}. */
  public ProcessLeakExtension() {
    this.configured = null;
  }

  private ProcessLeakExtension(Options options) {
    this.configured = options;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    Options options = options(context);
    if (options.scope == LeakScope.CLASS) {
      begin(context, options, context.getRequiredTestClass().getSimpleName(), "");
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Options options = options(context);
    if (options.scope == LeakScope.METHOD) {
      boolean parallel =
          context.getConfigurationParameter(PARALLEL).map(Boolean::parseBoolean).orElse(false);
      String caveat =
          parallel
              ? "JUnit parallel execution is enabled: with method scope a leak may come from a"
                  + " test running at the same time; use @NoProcessLeaks(scope = CLASS)"
              : "";
      String name =
          context.getRequiredTestClass().getSimpleName()
              + "."
              + context.getRequiredTestMethod().getName()
              + "() ["
              + context.getDisplayName()
              + "]";
      begin(context, options, name, caveat);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    end(context, options(context));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    end(context, options(context));
  }

  private static void begin(ExtensionContext context, Options options, String name, String caveat) {
    LeakTracker tracker =
        LeakTracker.start(options.platform(), options.sampleEvery, options.ignore, name, caveat);
    context.getStore(NAMESPACE).put(TRACKER, tracker);
  }

  private static void end(ExtensionContext context, Options options) {
    // Only the context that began tracking holds the tracker in its own store: a parent's tracker
    // (class scope) is not ended by a method's afterEach.
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    LeakTracker tracker = store.remove(TRACKER, LeakTracker.class);
    if (tracker == null) {
      return;
    }
    try {
      LeakReport report = tracker.check(options.linger);
      if (report.isClean()) {
        return;
      }
      report = tracker.kill(report);
      String text = report.render();
      if (options.action == LeakAction.FAIL || !report.survivors().isEmpty()) {
        throw new AssertionError(text);
      }
      LOG.warn("{}", text);
      context.publishReportEntry("process-leaks", text);
    } finally {
      tracker.close();
    }
  }

  private Options options(ExtensionContext context) {
    if (configured != null) {
      return configured;
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
    return found.map(Options::of).orElseGet(() -> new Builder().options());
  }

  /** Options for a programmatically registered extension. */
  public static final class Builder {
    private LeakScope scope = LeakScope.METHOD;
    private Duration linger = DEFAULT_LINGER;
    private LeakAction action = LeakAction.FAIL;
    private final List<Pattern> ignore = new ArrayList<>();
    private Duration sampleEvery = LeakTracker.DEFAULT_SAMPLE_EVERY;
    private ProcessPlatform platform;

    private Builder() {}

    public Builder scope(LeakScope value) {
      this.scope = Objects.requireNonNull(value, "scope");
      return this;
    }

    /** How long processes may take to exit by themselves; {@link Duration#ZERO} checks once. */
    public Builder linger(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("linger must not be negative: " + value);
      }
      this.linger = value;
      return this;
    }

    public Builder action(LeakAction value) {
      this.action = Objects.requireNonNull(value, "action");
      return this;
    }

    /** Never report processes whose command line contains a match of {@code regex}. */
    public Builder ignore(String regex) {
      this.ignore.add(Pattern.compile(regex));
      return this;
    }

    /** Background sampling period ({@link Duration#ZERO} disables sampling). */
    public Builder sampleEvery(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("sampleEvery must not be negative: " + value);
      }
      this.sampleEvery = value;
      return this;
    }

    /** The platform to read and signal processes with; {@link ProcessPlatform#get()} by default. */
    public Builder platform(ProcessPlatform value) {
      this.platform = Objects.requireNonNull(value, "platform");
      return this;
    }

    public ProcessLeakExtension build() {
      return new ProcessLeakExtension(options());
    }

    private Options options() {
      return new Options(scope, linger, action, List.copyOf(ignore), sampleEvery, platform);
    }
  }

  private record Options(
      LeakScope scope,
      Duration linger,
      LeakAction action,
      List<Pattern> ignore,
      Duration sampleEvery,
      ProcessPlatform explicitPlatform) {

    static Options of(NoProcessLeaks a) {
      Builder b = builder().scope(a.scope()).action(a.action());
      if (!a.linger().isBlank()) {
        b.linger(DurationText.parse(a.linger()));
      }
      for (String regex : a.ignore()) {
        b.ignore(regex);
      }
      return b.options();
    }

    ProcessPlatform platform() {
      return explicitPlatform != null ? explicitPlatform : ProcessPlatform.get();
    }
  }
}
