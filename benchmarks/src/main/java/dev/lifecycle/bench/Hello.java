package dev.lifecycle.bench;

/** {@code java Hello}: the floor a JVM command line is compared with. */
public final class Hello {
  private Hello() {}

  public static void main(String[] args) {
    System.out.println("hello");
  }
}
