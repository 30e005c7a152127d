package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lifecycle.testkit.NoProcessLeaks;
import org.junit.jupiter.api.Test;

@NoProcessLeaks
class CleanTest {
  @Test
  void childThatExits() throws Exception {
    assertEquals(0, new ProcessBuilder("true").start().waitFor());
  }
}
