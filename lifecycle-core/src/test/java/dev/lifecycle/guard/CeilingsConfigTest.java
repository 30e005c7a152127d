package dev.lifecycle.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CeilingsConfigTest {
  private static final String P = "lifecycle.test.guard";
  private static final String V = "LIFECYCLE_TEST_GUARD_UNSET";

  @AfterEach
  void clear() {
    for (String s :
        new String[] {"memory", "processes", "cpu", "cpu.window", "spin", "spin.window"}) {
      System.clearProperty(P + "." + s);
    }
  }

  private static Ceilings resolve(Ceilings defaults) {
    return Ceilings.fromConfig(P, V, defaults);
  }

  /** Sets {@code P.<key>} for each {@code key=value}, then resolves over no defaults. */
  private static Ceilings configured(String... settings) {
    for (String setting : settings) {
      int eq = setting.indexOf('=');
      System.setProperty(P + "." + setting.substring(0, eq), setting.substring(eq + 1));
    }
    return resolve(Ceilings.none());
  }

  @Test
  void nothingConfiguredIsTheDefaults() {
    Ceilings d = Ceilings.none().withSpin(0.9, Duration.ofMinutes(10)).withProcesses(7);
    assertThat(resolve(d)).isEqualTo(d);
    assertThat(resolve(Ceilings.none())).isEqualTo(Ceilings.none());
  }

  @Test
  void eachCeilingIsReadOnItsOwnWithTheLimitsGrammar() {
    Ceilings c = configured("memory=512m", "processes=64", "cpu=1.5", "spin=0.9", "spin.window=2m");
    assertThat(c.memoryBytes()).isEqualTo(512L << 20);
    assertThat(c.processes()).isEqualTo(64);
    assertThat(c.cpu()).isEqualTo(new Ceilings.CpuRule(1.5, Ceilings.DEFAULT_WINDOW));
    assertThat(c.spin()).isEqualTo(new Ceilings.CpuRule(0.9, Duration.ofMinutes(2)));
    System.setProperty(P + ".memory", "2G");
    assertThat(resolve(Ceilings.none()).memoryBytes()).isEqualTo(2L << 30);
    System.setProperty(P + ".memory", "4096");
    assertThat(resolve(Ceilings.none()).memoryBytes()).isEqualTo(4096);
  }

  @Test
  void zeroDisablesWhatTheDefaultEnabled() {
    System.setProperty(P + ".spin", "0");
    System.setProperty(P + ".processes", "0");
    Ceilings c = resolve(Ceilings.none().withSpin(0.9, Duration.ofMinutes(10)).withProcesses(7));
    assertThat(c.anyEnabled()).isFalse();
  }

  @Test
  void hugeValuesClampInsteadOfOverflowing() {
    Ceilings c =
        configured(
            "memory=99999999999999999999999t",
            "processes=99999999999999999999999",
            "spin=1e308",
            "spin.window=99999999999d");
    assertThat(c.memoryBytes()).isEqualTo(Ceilings.MAX_MEMORY_BYTES);
    assertThat(c.processes()).isEqualTo(Ceilings.MAX_PROCESSES);
    assertThat(c.spin().share()).isEqualTo(Ceilings.MAX_CPU_SHARE);
    assertThat(c.spin().window()).isEqualTo(Duration.ofDays(36_500));
    System.setProperty(P + ".memory", "9000000000t");
    assertThat(resolve(Ceilings.none()).memoryBytes()).isEqualTo(Ceilings.MAX_MEMORY_BYTES);
  }

  @Test
  void unusableTextFallsBackToTheDefault() {
    Ceilings d = Ceilings.none().withSpin(0.9, Duration.ofMinutes(10)).withMemoryBytes(100);
    for (String bad : new String[] {"", " ", "-1", "NaN", "Infinity", "abc", "1.5x"}) {
      System.setProperty(P + ".memory", bad);
      System.setProperty(P + ".spin", bad);
      assertThat(resolve(d)).as(bad).isEqualTo(d);
    }
    System.clearProperty(P + ".spin");
    System.setProperty(P + ".spin.window", "0");
    assertThat(resolve(d).spin().window()).isEqualTo(Duration.ofMinutes(10));
  }
}
