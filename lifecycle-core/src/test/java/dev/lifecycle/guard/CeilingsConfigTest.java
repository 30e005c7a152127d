package dev.lifecycle.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CeilingsConfigTest {
  private static final String P = "lifecycle.test.guard";
  private static final String V = "LIFECYCLE_TEST_GUARD";

  private final Map<String, String> properties = new HashMap<>();
  private final Map<String, String> environment = new HashMap<>();

  private Ceilings resolve(Ceilings defaults) {
    return Ceilings.fromConfig(P, V, defaults, properties::get, environment::get);
  }

  /** Sets {@code P.<key>} for each {@code key=value}, then resolves over no defaults. */
  private Ceilings configured(String... settings) {
    for (String setting : settings) {
      int eq = setting.indexOf('=');
      properties.put(P + "." + setting.substring(0, eq), setting.substring(eq + 1));
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
    properties.put(P + ".memory", "2G");
    assertThat(resolve(Ceilings.none()).memoryBytes()).isEqualTo(2L << 30);
    properties.put(P + ".memory", "4096");
    assertThat(resolve(Ceilings.none()).memoryBytes()).isEqualTo(4096);
  }

  @Test
  void thePropertyWinsOverTheVariableWhichWinsOverTheDefault() {
    Ceilings d = Ceilings.none().withProcesses(7).withMemoryBytes(100);
    environment.put(V + "_PROCESSES", "32");
    environment.put(V + "_SPIN", "0.8");
    environment.put(V + "_SPIN_WINDOW", "90s");
    properties.put(P + ".processes", "16");
    Ceilings c = resolve(d);
    assertThat(c.processes()).as("property over variable").isEqualTo(16);
    assertThat(c.spin())
        .as("variables alone")
        .isEqualTo(new Ceilings.CpuRule(0.8, Duration.ofSeconds(90)));
    assertThat(c.memoryBytes()).as("neither: the default").isEqualTo(100);
    properties.put(P + ".processes", "sixteen");
    assertThat(resolve(d).processes())
        .as("an unusable property falls to the variable")
        .isEqualTo(32);
  }

  @Test
  void zeroDisablesWhatTheDefaultEnabled() {
    properties.put(P + ".spin", "0");
    properties.put(P + ".processes", "0");
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
    properties.put(P + ".memory", "9000000000t");
    assertThat(resolve(Ceilings.none()).memoryBytes()).isEqualTo(Ceilings.MAX_MEMORY_BYTES);
  }

  @Test
  void unusableTextFallsBackToTheDefault() {
    Ceilings d = Ceilings.none().withSpin(0.9, Duration.ofMinutes(10)).withMemoryBytes(100);
    for (String bad : new String[] {"", " ", "-1", "NaN", "Infinity", "abc", "1.5x"}) {
      properties.put(P + ".memory", bad);
      properties.put(P + ".spin", bad);
      assertThat(resolve(d)).as(bad).isEqualTo(d);
    }
    properties.remove(P + ".spin");
    properties.put(P + ".spin.window", "0");
    assertThat(resolve(d).spin().window()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void withoutFunctionsThisJvmsSystemPropertiesAreRead() {
    String name = P + ".jvm.processes";
    System.setProperty(name, "5");
    try {
      assertThat(Ceilings.fromConfig(P + ".jvm", V + "_JVM_UNSET", Ceilings.none()).processes())
          .isEqualTo(5);
    } finally {
      System.clearProperty(name);
    }
  }

  @Test
  void missingArgumentsAreRejected() {
    assertThatNullPointerException()
        .isThrownBy(() -> Ceilings.fromConfig(P, V, Ceilings.none(), null, environment::get))
        .withMessage("properties");
    assertThatNullPointerException()
        .isThrownBy(() -> Ceilings.fromConfig(P, V, null, properties::get, environment::get))
        .withMessage("defaults");
  }
}
