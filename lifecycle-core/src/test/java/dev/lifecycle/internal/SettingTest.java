package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.testing.Stderr;
import dev.lifecycle.time.Limit;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one precedence of every setting, edge by edge: code, then system property (real ones, set and
 * cleared here), then environment (a variable of this JVM cannot be set, so it is looked up in a
 * map), then the default; unusable text falls through with a warning that names it.
 */
class SettingTest {
  private static final String PROPERTY = "lifecycle.test.setting." + ProcessHandle.current().pid();
  private static final String VARIABLE = "LIFECYCLE_TEST_SETTING";
  private static final Setting<Limit> LIMIT =
      Setting.of(PROPERTY, VARIABLE, Limit.ofSeconds(60), Limit::parse);

  private static final Function<String, String> NO_ENVIRONMENT = name -> null;

  @AfterEach
  void clearProperty() {
    System.clearProperty(PROPERTY);
  }

  private static Function<String, String> environment(String value) {
    return Map.of(VARIABLE, value)::get;
  }

  @Test
  void codeBeatsTheProperty() {
    System.setProperty(PROPERTY, "5s");
    assertThat(LIMIT.resolve(Optional.of(Limit.ofSeconds(1)))).isEqualTo(Limit.ofSeconds(1));
    assertThat(LIMIT.resolve(Optional.of(Limit.disabled()))).isEqualTo(Limit.disabled());
  }

  @Test
  void thePropertyBeatsTheEnvironment() {
    System.setProperty(PROPERTY, "5s");
    assertThat(LIMIT.resolve(Optional.empty(), System::getProperty, environment("7s")))
        .isEqualTo(Limit.ofSeconds(5));
    System.setProperty(PROPERTY, "0");
    assertThat(LIMIT.resolve(Optional.empty(), System::getProperty, environment("7s")))
        .isEqualTo(Limit.disabled());
  }

  @Test
  void theEnvironmentBeatsTheDefault() {
    assertThat(LIMIT.resolve(Optional.empty(), System::getProperty, environment("7s")))
        .isEqualTo(Limit.ofSeconds(7));
  }

  @Test
  void theDefaultWhenNothingIsSet() {
    assertThat(LIMIT.resolve(Optional.empty(), System::getProperty, NO_ENVIRONMENT))
        .isEqualTo(Limit.ofSeconds(60));
    assertThat(LIMIT.resolve()).isEqualTo(Limit.ofSeconds(60));
  }

  @Test
  void unusableTextFallsThroughWithAWarningNamingTheSourceAndTheValue() {
    System.setProperty(PROPERTY, "2 hours");
    String[] resolved = new String[1];
    String log =
        Stderr.during(
            () ->
                resolved[0] =
                    LIMIT
                        .resolve(Optional.empty(), System::getProperty, environment("7s"))
                        .toString());
    assertThat(resolved[0]).isEqualTo(Limit.ofSeconds(7).toString());
    assertThat(log).contains("WARN").contains("system property " + PROPERTY).contains("2 hours");

    // Bad in both: the default, never "disabled".
    assertThat(LIMIT.resolve(Optional.empty(), System::getProperty, environment("soon")))
        .isEqualTo(Limit.ofSeconds(60));
    // Blank is bad text too, not "unset" and not "disabled".
    System.setProperty(PROPERTY, " ");
    assertThat(LIMIT.resolve(Optional.empty(), System::getProperty, NO_ENVIRONMENT))
        .isEqualTo(Limit.ofSeconds(60));
  }

  @Test
  void strictParsingNamesTheSettingAndTheValue() {
    assertThat(LIMIT.parse(" 10m ")).isEqualTo(Limit.ofMinutes(10));
    assertThatThrownBy(() -> LIMIT.parse("ten minutes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(PROPERTY)
        .hasMessageContaining(VARIABLE)
        .hasMessageContaining("\"ten minutes\"");
  }

  enum Mode {
    AUTO,
    NATIVE
  }

  @Test
  void choicesFlagsAndGraces() {
    Setting<Mode> mode = Setting.choice(PROPERTY, VARIABLE, Mode.AUTO);
    assertThat(mode.resolve(Optional.empty(), name -> null, environment("Native")))
        .isEqualTo(Mode.NATIVE);
    assertThatThrownBy(() -> mode.parse("posix")).hasMessageContaining("not one of auto, native");

    Setting<Boolean> flag = Setting.flag(PROPERTY, VARIABLE, false);
    assertThat(flag.resolve(Optional.empty(), name -> null, environment("TRUE"))).isTrue();
    assertThat(flag.resolve(Optional.empty(), name -> null, environment("yes"))).isFalse();

    Setting<Duration> grace = Setting.duration(PROPERTY, VARIABLE, Duration.ofSeconds(5));
    assertThat(grace.resolve(Optional.empty(), name -> null, environment("0"))).isZero();
    assertThat(grace.resolve(Optional.empty(), name -> null, environment("1500ms")))
        .isEqualTo(Duration.ofMillis(1500));
    assertThat(grace.resolve(Optional.of(Duration.ofSeconds(1)), name -> null, environment("0")))
        .isEqualTo(Duration.ofSeconds(1));
  }
}
