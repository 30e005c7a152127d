package dev.lifecycle.bench;

/** The positional arguments of a harness's {@code main}, each with the default it runs without. */
final class HarnessArgs {
  private HarnessArgs() {}

  /** Argument {@code i}, or {@code otherwise} when there are fewer. */
  static String arg(String[] args, int i, String otherwise) {
    return args.length > i ? args[i] : otherwise;
  }

  /** Argument {@code i} as an int, or {@code otherwise} when there are fewer. */
  static int intArg(String[] args, int i, int otherwise) {
    return args.length > i ? Integer.parseInt(args[i]) : otherwise;
  }

  /** Argument {@code i} split at commas, or {@code otherwise} split when there are fewer. */
  static String[] listArg(String[] args, int i, String otherwise) {
    return arg(args, i, otherwise).split(",");
  }
}
