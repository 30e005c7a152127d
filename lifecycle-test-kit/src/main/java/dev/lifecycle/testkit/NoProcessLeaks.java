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
 * method; a method's annotation overrides its class's. Attributes left at their defaults come from
 * the {@code lifecycle.leaks.*} configuration parameters (see {@link LeakOptions}), then from the
 * defaults there.
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
  /**
   * Per method and class (default), or per class only.
   *
   * @return the scope; {@link LeakScope#INFERRED} takes {@value LeakOptions#SCOPE_PARAMETER}, else
   *     {@link LeakOptions#DEFAULT_SCOPE}
   */
  LeakScope scope() default LeakScope.INFERRED;

  /**
   * How long to wait for processes to exit by themselves before calling them leaked, in {@link
   * dev.lifecycle.time.Limit#parse(String)} grammar: {@code "3s"}, {@code "500ms"}, {@code "PT2S"},
   * a bare integer is milliseconds, {@code "0"} checks once.
   *
   * @return the linger as text; empty takes {@value LeakOptions#LINGER_PARAMETER}, else {@link
   *     LeakOptions#DEFAULT_LINGER}
   */
  String linger() default "";

  /**
   * Fail the test (and kill the leaks), or only warn.
   *
   * @return the action; {@link LeakAction#INFERRED} takes {@value LeakOptions#ACTION_PARAMETER},
   *     else {@link LeakOptions#DEFAULT_ACTION}
   */
  LeakAction action() default LeakAction.INFERRED;

  /**
   * Regular expressions (found anywhere in the command line) of processes never reported.
   *
   * @return the patterns, added to those of {@value LeakOptions#IGNORE_PARAMETER}
   */
  String[] ignore() default {};
}
