package com.example;

import org.junit.Test;

/** JUnit 4 through Vintage: checked by the kit's Platform listener. */
public class Junit4LeakTest {
  @Test
  public void leaksAChild() throws Exception {
    Leaks.child("303");
  }
}
