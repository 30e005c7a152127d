package dev.lifecycle.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One test's tag for the MCP servers it starts: skips the test where the servers cannot be
 * installed, gives each test a fresh tag and kills what still carries it after the test.
 */
final class ServerTag implements BeforeEachCallback, AfterEachCallback {
  private final boolean leftoversFail;
  private String tag;

  private ServerTag(boolean leftoversFail) {
    this.leftoversFail = leftoversFail;
  }

  /** A test fails when anything carrying its tag outlives it. */
  static ServerTag nothingLeft() {
    return new ServerTag(true);
  }

  /** What outlives a test is killed without failing it (a baseline that leaks by design). */
  static ServerTag leftoversKilled() {
    return new ServerTag(false);
  }

  /** The current test's tag. */
  String tag() {
    return tag;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    McpServers.require();
    tag = McpServers.newTag();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (tag == null) {
      return;
    }
    int left = Tagged.cleanUp(tag);
    tag = null;
    if (leftoversFail) {
      assertThat(left).as("tagged processes left by the test").isZero();
    }
  }
}
