package com.example;

import org.junit.jupiter.api.Test;

/** No annotation: checked because junit-platform.properties enables extension autodetection. */
class AutodetectedLeakTest {
  @Test
  void leaksAChild() throws Exception {
    Leaks.child("302");
  }

  @Test
  void clean() {}
}
