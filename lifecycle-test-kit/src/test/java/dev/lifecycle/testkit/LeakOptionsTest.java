package dev.lifecycle.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** One options value: explicit settings, then configuration parameters, then defaults. */
class LeakOptionsTest {
  private static Function<String, Optional<String>> config(Map<String, String> values) {
    return key -> Optional.ofNullable(values.get(key));
  }

  @Test
  void defaultsAreTheNamedConstants() {
    LeakOptions o = LeakOptions.defaults();
    assertThat(o.linger()).isEqualTo(LeakOptions.DEFAULT_LINGER);
    assertThat(o.action()).isEqualTo(LeakAction.FAIL);
    assertThat(o.scope()).isEqualTo(LeakScope.METHOD);
    assertThat(o.attribution()).isEqualTo(Attribution.AUTO);
  }

  @Test
  void lingerUsesLimitsGrammarAndClampsInsteadOfWrapping() {
    assertThat(LeakOptions.builder().linger("18446744074s").build().linger()).isEqualTo(Limit.MAX);
    assertThat(LeakOptions.builder().linger("500ms").build().linger())
        .isEqualTo(Duration.ofMillis(500));
    assertThat(LeakOptions.builder().linger("250").build().linger())
        .isEqualTo(Duration.ofMillis(250));
    assertThat(LeakOptions.builder().linger("PT2S").build().linger())
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(LeakOptions.builder().linger("0").build().linger()).isZero();
    assertThat(LeakOptions.builder().linger(Duration.ofDays(1_000_000)).build().linger())
        .isEqualTo(Limit.MAX);
    assertThatThrownBy(() -> LeakOptions.builder().linger("1.5s"))
        .hasMessageContaining("unusable linger")
        .hasMessageContaining("\"1.5s\"");
    assertThatThrownBy(() -> LeakOptions.builder().linger("-1s")).hasMessageContaining("negative");
    assertThatThrownBy(() -> LeakOptions.builder().linger("99999999999999999999s"))
        .hasMessageContaining("too large");
  }

  @Test
  void configurationFillsWhatIsNotSetExplicitly() {
    Map<String, String> values =
        Map.of(
            LeakOptions.LINGER_PARAMETER, "750ms",
            LeakOptions.ACTION_PARAMETER, "warn",
            LeakOptions.SCOPE_PARAMETER, "CLASS",
            LeakOptions.ATTRIBUTION_PARAMETER, "evidence",
            LeakOptions.IGNORE_PARAMETER, "postgres, my-daemon ,");
    LeakOptions fromConfig = LeakOptions.builder().build(config(values));
    assertThat(fromConfig.linger()).isEqualTo(Duration.ofMillis(750));
    assertThat(fromConfig.action()).isEqualTo(LeakAction.WARN);
    assertThat(fromConfig.scope()).isEqualTo(LeakScope.CLASS);
    assertThat(fromConfig.attribution()).isEqualTo(Attribution.EVIDENCE);
    assertThat(fromConfig.ignore())
        .extracting(Object::toString)
        .containsExactly("postgres", "my-daemon");

    LeakOptions explicit =
        LeakOptions.builder()
            .linger("1s")
            .action(LeakAction.FAIL)
            .scope(LeakScope.METHOD)
            .attribution(Attribution.CGROUP)
            .ignore("mine")
            .build(config(values));
    assertThat(explicit.linger()).isEqualTo(Duration.ofSeconds(1));
    assertThat(explicit.action()).isEqualTo(LeakAction.FAIL);
    assertThat(explicit.scope()).isEqualTo(LeakScope.METHOD);
    assertThat(explicit.attribution()).isEqualTo(Attribution.CGROUP);
    assertThat(explicit.ignore()).extracting(Object::toString).contains("mine", "postgres");
  }

  @Test
  void unusableConfigurationFallsBackToTheDefault() {
    Map<String, String> values =
        Map.of(
            LeakOptions.LINGER_PARAMETER, "soon",
            LeakOptions.ACTION_PARAMETER, "explode",
            LeakOptions.SCOPE_PARAMETER, "inferred",
            LeakOptions.IGNORE_PARAMETER, "[unclosed");
    LeakOptions o = LeakOptions.builder().build(config(values));
    assertThat(o.linger()).isEqualTo(LeakOptions.DEFAULT_LINGER);
    assertThat(o.action()).isEqualTo(LeakOptions.DEFAULT_ACTION);
    assertThat(o.scope()).isEqualTo(LeakOptions.DEFAULT_SCOPE);
    assertThat(o.ignore()).isEmpty();
  }

  @Test
  void theAnnotationSetsOnlyWhatItNames() {
    @NoProcessLeaks(linger = "18446744074s", ignore = "x")
    class Annotated {}
    NoProcessLeaks a = Annotated.class.getAnnotation(NoProcessLeaks.class);
    LeakOptions o =
        LeakOptions.Builder.of(a).build(config(Map.of(LeakOptions.ACTION_PARAMETER, "warn")));
    assertThat(o.linger()).isEqualTo(Limit.MAX);
    assertThat(o.action()).isEqualTo(LeakAction.WARN);
    assertThat(o.ignore()).extracting(Object::toString).containsExactly("x");
  }
}
