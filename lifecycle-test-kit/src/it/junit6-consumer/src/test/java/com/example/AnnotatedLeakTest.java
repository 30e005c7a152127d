package com.example;

import dev.lifecycle.testkit.NoProcessLeaks;
import org.junit.jupiter.api.Test;

@NoProcessLeaks
class AnnotatedLeakTest {
  @Test
  void leaksADaemon() throws Exception {
    Leaks.daemon("301");
  }
}
