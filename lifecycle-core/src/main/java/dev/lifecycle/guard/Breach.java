package dev.lifecycle.guard;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One ceiling a tree went past, with the figures: what was measured, the limit, the window it was
 * judged over, who noticed, and the tree's top members at that moment. Immutable and thread-safe.
 *
 * <p>{@link #toString()} is the sentence a report and a log carry, e.g. {@code spin: 1.00 of a core
 * >= limit 0.90 for 10.0 s (watchdog); top: 4711 sh -c while :; do :; done (1.00 core, 3 MiB)}.
 *
 * @param kind which ceiling
 * @param measured the measured value: bytes for {@link Kind#MEMORY}, live processes for {@link
 *     Kind#PROCESSES}, share of one core for {@link Kind#CPU} and {@link Kind#SPIN}
 * @param limit the ceiling, in the same unit
 * @param window what the value was judged over; zero for a level read at one sample
 * @param by who noticed: {@link Enforcement.By#KERNEL} (a kernel limit was hit, e.g. {@code
 *     memory.events oom_kill}) or {@link Enforcement.By#WATCHDOG}
 * @param top the tree's busiest or largest members when the breach was seen, one line each
 */
public record Breach(
    Kind kind,
    double measured,
    double limit,
    Duration window,
    Enforcement.By by,
    List<String> top) {

  /** Which ceiling was breached. */
  public enum Kind {
    /** Resident memory of the whole tree. */
    MEMORY,
    /** Live processes of the whole tree. */
    PROCESSES,
    /** Average CPU share over the CPU ceiling's window. */
    CPU,
    /** CPU share at or above the spin rule's share for its whole window. */
    SPIN
  }

  /**
   * Checks and copies.
   *
   * @param kind which ceiling
   * @param measured the measured value, in the ceiling's unit
   * @param limit the ceiling
   * @param window what the value was judged over
   * @param by who noticed
   * @param top the tree's top members, one line each
   * @throws NullPointerException if a component is {@code null}
   */
  public Breach {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(by, "by");
    top = List.copyOf(top);
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder(kind.name().toLowerCase(Locale.ROOT)).append(": ");
    switch (kind) {
      case MEMORY ->
          out.append(mebibytes(measured)).append(" resident > limit ").append(mebibytes(limit));
      case PROCESSES ->
          out.append((long) measured).append(" processes > limit ").append((long) limit);
      case CPU ->
          out.append(String.format(Locale.ROOT, "%.2f of a core > limit %.2f", measured, limit));
      case SPIN ->
          out.append(String.format(Locale.ROOT, "%.2f of a core >= limit %.2f", measured, limit));
    }
    if (!window.isZero()) {
      out.append(kind == Kind.SPIN ? " for " : " over ")
          .append(String.format(Locale.ROOT, "%.1f s", window.toMillis() / 1000.0));
    }
    out.append(" (").append(by.name().toLowerCase(Locale.ROOT)).append(')');
    if (!top.isEmpty()) {
      out.append("; top: ").append(String.join(", ", top));
    }
    return out.toString();
  }

  /** Bytes as MiB with one decimal, for people. */
  static String mebibytes(double bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
}
