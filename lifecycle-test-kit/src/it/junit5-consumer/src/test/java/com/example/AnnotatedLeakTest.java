package com.example;

import dev.lifecycle.testkit.NoProcessLeaks;
import org.junit.jupiter.api.Test;

@NoProcessLeaks
class AnnotatedLeakTest {
  @Test
  void leaksAChild() throws Exception {
    Leaks.child("301");
  }
}
