package dev.lifecycle.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.tree.TreeOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CeilingsTest {
  @Test
  void noneEnablesNothingAndIsTheTreeDefault() {
    assertThat(Ceilings.none().anyEnabled()).isFalse();
    assertThat(TreeOptions.defaults().ceilings()).isEqualTo(Ceilings.none());
    assertThat(Ceilings.none().handler()).isSameAs(BreachHandler.terminate());
  }

  @Test
  void zeroDisablesEachCeiling() {
    Ceilings c = Ceilings.none().withMemoryBytes(0).withProcesses(0).withCpu(0, Duration.ZERO);
    assertThat(c.anyEnabled()).isFalse();
    assertThat(Ceilings.none().withSpin(0, Duration.ofSeconds(5)).spin())
        .isEqualTo(Ceilings.CpuRule.DISABLED);
    assertThat(Ceilings.none().withMemoryBytes(1).anyEnabled()).isTrue();
    assertThat(Ceilings.none().withProcesses(1).anyEnabled()).isTrue();
    assertThat(Ceilings.none().withSpin(0.5, Duration.ofSeconds(1)).anyEnabled()).isTrue();
  }

  @Test
  void hugeValuesClampToEffectivelyNever() {
    Ceilings c =
        Ceilings.none()
            .withMemoryBytes(Long.MAX_VALUE)
            .withProcesses(Long.MAX_VALUE)
            .withCpu(1e300, Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(c.memoryBytes()).isEqualTo(Ceilings.MAX_MEMORY_BYTES);
    assertThat(c.processes()).isEqualTo(Ceilings.MAX_PROCESSES);
    assertThat(c.cpu().share()).isEqualTo(Ceilings.MAX_CPU_SHARE);
    assertThat(c.cpu().window()).isEqualTo(Duration.ofDays(36_500));
  }

  @Test
  void unusableValuesAreRefusedWithTheReason() {
    assertThatThrownBy(() -> Ceilings.none().withMemoryBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 disables");
    assertThatThrownBy(() -> Ceilings.none().withProcesses(-5))
        .isInstanceOf(IllegalArgumentException.class);
    for (double bad : new double[] {-0.1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> Ceilings.none().withSpin(bad, Duration.ofSeconds(1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("finite");
    }
    assertThatThrownBy(() -> Ceilings.none().withCpu(0.5, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive window");
    assertThatThrownBy(() -> Ceilings.none().withCpu(0.5, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TreeOptions.defaults().withCeilings(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void treeOptionsCarryTheCeilingsThroughEveryCopy() {
    Ceilings c = Ceilings.none().withProcesses(8);
    TreeOptions o =
        TreeOptions.defaults()
            .withCeilings(c)
            .withGrace(Duration.ofSeconds(1))
            .withEscapeeGrace(Duration.ZERO)
            .withVerifyTimeout(Duration.ofSeconds(2))
            .withFreezeBeforeKill(true);
    assertThat(o.ceilings()).isEqualTo(c);
  }

  @Test
  void aBreachSaysWhatWhichLimitAndOverWhat() {
    Breach spin =
        new Breach(
            Breach.Kind.SPIN,
            0.994,
            0.9,
            Duration.ofSeconds(10),
            Enforcement.By.WATCHDOG,
            java.util.List.of("4711 yes"));
    assertThat(spin.toString())
        .isEqualTo("spin: 0.99 of a core >= limit 0.90 for 10.0 s (watchdog); top: 4711 yes");
    Breach memory =
        new Breach(
            Breach.Kind.MEMORY,
            300 << 20,
            100 << 20,
            Duration.ZERO,
            Enforcement.By.KERNEL,
            java.util.List.of());
    assertThat(memory.toString())
        .isEqualTo("memory: 300.0 MiB resident > limit 100.0 MiB (kernel)");
  }
}
