package dev.lifecycle.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lifecycle.internal.Setting;
import dev.lifecycle.time.Limit;
import dev.lifecycle.tree.TreeOptions;
import io.modelcontextprotocol.client.transport.ServerParameters;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ladder and limit values: defaults, 0 disables, huge values clamp. No processes. */
class ConfigurationTest {
  @Test
  void theDefaultLadderFitsTheTenSecondsTheSdksSyncCloseWaits() {
    ShutdownLadder ladder = ShutdownLadder.defaults();
    assertThat(ladder.stdinWait()).isEqualTo(Duration.ofSeconds(2));
    assertThat(ladder.termGrace()).isEqualTo(Duration.ofSeconds(2));
    assertThat(ladder.killVerify()).isEqualTo(Duration.ofSeconds(3));
    assertThat(ladder.worstCase())
        .isEqualTo(Duration.ofSeconds(7))
        .isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void zeroStepsWaitZeroAndMapToTheTreeOptions() {
    ShutdownLadder ladder =
        new ShutdownLadder(Duration.ZERO, Duration.ZERO, Duration.ofMillis(250));
    assertThat(ladder.worstCase()).isEqualTo(Duration.ofMillis(250));
    TreeOptions options = ladder.treeOptions();
    assertThat(options.grace()).isZero();
    assertThat(options.escapeeGrace()).isZero();
    assertThat(options.verifyTimeout()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void theEscapeeGraceNeverExceedsTheTermGrace() {
    TreeOptions shortGrace =
        ShutdownLadder.defaults().withTermGrace(Duration.ofMillis(300)).treeOptions();
    assertThat(shortGrace.escapeeGrace()).isEqualTo(Duration.ofMillis(300));
    TreeOptions longGrace =
        ShutdownLadder.defaults().withTermGrace(Duration.ofSeconds(30)).treeOptions();
    assertThat(longGrace.escapeeGrace()).isEqualTo(TreeOptions.DEFAULT_ESCAPEE_GRACE);
  }

  @Test
  void hugeValuesClampInsteadOfOverflowing() {
    ShutdownLadder ladder =
        ShutdownLadder.defaults().withTermGrace(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(ladder.termGrace()).isEqualTo(Limit.MAX);
    assertThat(ladder.withKillVerify(ChronoUnit.FOREVER.getDuration()).worstCase())
        .isEqualTo(Limit.MAX.multipliedBy(2).plus(ShutdownLadder.DEFAULT_STDIN_WAIT));
    assertThat(ladder.treeOptions().grace()).isEqualTo(Limit.MAX);
    ServerLimits limits = ServerLimits.defaults().withIdle(Limit.parse("100000000d"));
    assertThat(limits.idle().isClamped()).isTrue();
    assertThat(limits.idle().duration()).isEqualTo(Limit.MAX);
  }

  @Test
  void serverLimitsDefaultToTheBrokersStartupBoundAndNothingElse() {
    ServerLimits limits = ServerLimits.defaults();
    assertThat(limits.startup().duration()).isEqualTo(Duration.ofSeconds(60));
    assertThat(limits.idle().isEnabled()).isFalse();
    assertThat(limits.wallClock().isEnabled()).isFalse();
    assertThat(limits.withStartup(Limit.parse("0")).startup().isEnabled()).isFalse();
  }

  @Test
  void codeWinsThenPropertiesThenEnvironmentThenDefaultsAndTyposFallThrough() {
    Map<String, String> properties =
        Map.of(
            ShutdownLadder.TERM_GRACE_PROPERTY, "500ms",
            ServerLimits.IDLE_PROPERTY, "0",
            ServerLimits.STARTUP_PROPERTY, "9s");
    Map<String, String> environment =
        Map.of(
            ShutdownLadder.TERM_GRACE_ENV, "9s",
            ShutdownLadder.STDIN_WAIT_ENV, "1s",
            ShutdownLadder.KILL_VERIFY_ENV, "soon", // unusable: logged, the default stays
            ServerLimits.WALL_CLOCK_ENV, "2h");
    ShutdownLadder ladder =
        ShutdownLadder.resolve(new Overrides(), properties::get, environment::get);
    assertThat(ladder.termGrace()).isEqualTo(Duration.ofMillis(500)); // property
    assertThat(ladder.stdinWait()).isEqualTo(Duration.ofSeconds(1)); // environment
    assertThat(ladder.killVerify()).isEqualTo(ShutdownLadder.DEFAULT_KILL_VERIFY);
    assertThat(
            ShutdownLadder.resolve(
                inCode(ShutdownLadder.STDIN_WAIT, Duration.ZERO), // beats the environment's "1s"
                Map.of(ShutdownLadder.TERM_GRACE_PROPERTY, "0")::get,
                environment::get))
        .isEqualTo(
            new ShutdownLadder(Duration.ZERO, Duration.ZERO, ShutdownLadder.DEFAULT_KILL_VERIFY));
    Overrides limitsInCode = inCode(ServerLimits.STARTUP, Limit.ofSeconds(30));
    limitsInCode.set(ServerLimits.IDLE, Limit.ofMinutes(5)); // beats the property's "0"
    ServerLimits limits = ServerLimits.resolve(limitsInCode, properties::get, environment::get);
    assertThat(limits.startup().duration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.idle().duration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(limits.wallClock().duration()).isEqualTo(Duration.ofHours(2));
    assertThat(
            ServerLimits.resolve(new Overrides(), properties::get, environment::get)
                .idle()
                .isEnabled())
        .isFalse(); // "0" disables
  }

  @Test
  void aTransportTakesItsBuilderValuesAndTheConfigurationForTheRest() {
    System.setProperty(ServerLimits.STARTUP_PROPERTY, "7s");
    System.setProperty(ServerLimits.IDLE_PROPERTY, "3m");
    try {
      SupervisedStdioClientTransport transport =
          SupervisedStdioClientTransport.builder(ServerParameters.builder("true").build())
              .startupTimeout(Limit.ofSeconds(30))
              .build();
      assertThat(transport.limits().startup().duration()).isEqualTo(Duration.ofSeconds(30));
      assertThat(transport.limits().idle().duration()).isEqualTo(Duration.ofMinutes(3));
      assertThat(ServerLimits.configured().startup().duration()).isEqualTo(Duration.ofSeconds(7));
    } finally {
      System.clearProperty(ServerLimits.STARTUP_PROPERTY);
      System.clearProperty(ServerLimits.IDLE_PROPERTY);
    }
  }

  @Test
  void theBuilderRejectsNonsense() {
    ServerParameters params = ServerParameters.builder("true").build();
    assertThatThrownBy(() -> SupervisedStdioClientTransport.builder(params).maxLineBytes(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ShutdownLadder(null, Duration.ZERO, Duration.ZERO))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ShutdownLadder.defaults().withTermGrace(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("termGrace");
    assertThatThrownBy(() -> Limit.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aTransportThatNeverConnectedShutsDownAtOnce() throws Exception {
    SupervisedStdioClientTransport transport =
        SupervisedStdioClientTransport.builder(ServerParameters.builder("true").build()).build();
    StdioShutdownReport report = transport.shutdown().get(1, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(report.endedBy()).isEqualTo(StdioShutdownReport.Step.NEVER_STARTED);
    assertThat(report.noSurvivorSeen()).isTrue();
    assertThat(transport.isRunning()).isFalse();
  }

  private static <T> Overrides inCode(Setting<T> setting, T value) {
    Overrides overrides = new Overrides();
    overrides.set(setting, value);
    return overrides;
  }
}
