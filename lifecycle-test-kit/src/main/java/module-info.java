/**
 * lifecycle's test kit: a JUnit Jupiter extension that fails the test that leaked a process, spin
 * and exit assertions, the scriptable fixture child, a concurrency harness and container checks
 * ({@link dev.lifecycle.testkit.container}, which needs the optional Testcontainers dependency).
 */
module dev.lifecycle.testkit {
  requires transitive dev.lifecycle.core;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;
  requires static org.junit.platform.launcher; // only ProcessLeakListener, loaded by a launcher
  requires org.slf4j;
  requires static testcontainers;

  exports dev.lifecycle.testkit;
  exports dev.lifecycle.testkit.container;

  provides org.junit.jupiter.api.extension.Extension with
      dev.lifecycle.testkit.ProcessLeakExtension;
// No `provides` for ProcessLeakListener: JDK 17 refuses to boot a layer where a provided
// service's module (the optional launcher) is absent. On the class path META-INF/services
// registers it.
}
