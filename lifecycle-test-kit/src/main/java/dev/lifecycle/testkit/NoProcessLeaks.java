package dev.lifecycle.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails a test that leaves a process behind (see {@link ProcessLeakExtension}). On a class or a
 * method; a method's annotation overrides its class's.
 *
 * <pre>{@code
 * @NoProcessLeaks(linger = "2s", ignore = "my-shared-daemon")
 * class MyTest { ... }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(ProcessLeakExtension.class)
public @interface NoProcessLeaks {
  /** Per test method (default) or per class. */
  LeakScope scope() default LeakScope.METHOD;

  /**
   * How long to wait for processes to exit by themselves before calling them leaked, e.g. {@code
   * "3s"}, {@code "500ms"}, {@code "0"}. Empty means {@link ProcessLeakExtension#DEFAULT_LINGER}.
   */
  String linger() default "";

  /** Fail the test, or only warn. */
  LeakAction action() default LeakAction.FAIL;

  /** Regular expressions (found anywhere in the command line) of processes never reported. */
  String[] ignore() default {};
}
