package dev.lifecycle.time;

import java.time.Duration;

/** Run in a child JVM by {@link JvmExitTest}: arms one timer, then lets main return at once. */
public final class JvmExitChild {
  private JvmExitChild() {}

  public static void main(String[] args) {
    switch (args[0]) {
      case "escalation":
        Guards.armEscalation(Duration.ofSeconds(1), () -> System.out.println("escalated"));
        break;
      case "guard":
        Guards.arm(Limit.ofSeconds(60), () -> System.out.println("guard fired"));
        break;
      default:
        throw new IllegalArgumentException(args[0]);
    }
    System.out.println("main returns");
  }
}
