package dev.lifecycle.testkit;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The program a {@link FixtureChild} runs: a small language of words processed in order by the
 * POSIX {@code sh} script {@code fixture.sh}. Immutable; every method returns a longer script.
 *
 * <h2>Grammar</h2>
 *
 * <pre>
 * script  := command*
 * block   := '{' script '}'                       (blocks nest)
 * command := 'spawn' N block      start N children (flat) in the background, each running block
 *          | 'chain' D block      start a chain D processes deep below this one; every level
 *                                 first starts the next level, then runs block
 *          | 'setsid' block       start a child in a new session via util-linux setsid(1) that
 *                                 runs block (an escapee); exits 97 with a message if setsid is
 *                                 absent (see {@link FixtureChild#setsidAvailable()})
 *          | 'daemon' block       double fork: ( sh fixture.sh block &amp; ); the grandchild is
 *                                 re-parented to init or the nearest subreaper at once
 *          | 'ignore-term'        trap '' TERM (inherited by every child started afterwards)
 *          | 'exit-on-term' CODE  on SIGTERM: end the current sleep and exit with CODE
 *          | 'close-stdin' | 'close-stdout' | 'close-stderr'
 *          | 'detach-stdio'       redirect 0-2 to /dev/null (stop holding the parent's pipes)
 *          | 'announce'           print "pid &lt;pid&gt;" on stdout
 *          | 'ready'              print "ready &lt;pid&gt;" on stdout (children above are forked)
 *          | 'print' WORD         print WORD on stdout
 *          | 'spin'               busy-loop forever on one core (while :; do :; done)
 *          | 'write-forever'      write lines to stdout forever; a closed pipe kills it by
 *                                 SIGPIPE (exit 141 as seen from Java)
 *          | 'write-until-epipe' CODE  ignore SIGPIPE, write until a write fails with EPIPE, then
 *                                 print "epipe &lt;pid&gt;" on stderr and exit with CODE
 *          | 'sleep' SECONDS      sleep (fractions allowed); the last command of a script with no
 *                                 exit-on-term trap execs sleep, so no extra process is left
 *          | 'wait'               wait for every background child
 *          | 'exit' CODE          exit with CODE
 * </pre>
 *
 * <p>Running out of words exits 0 and leaves background children running: that is the adversary's
 * job. Stdio is inherited by every child and held until it exits unless closed or detached. Every
 * fixture process exports {@code LIFECYCLE_FIXTURE=1}, and appends its pid to the file named by
 * {@code LIFECYCLE_FIXTURE_PIDFILE} when set ({@link FixtureChild.Builder#pidFile}). A malformed
 * script exits 98 with the reason on stderr.
 */
public final class FixtureScript {
  private static final Pattern WORD = Pattern.compile("[A-Za-z0-9._:+-]+");

  private final List<String> words;

  private FixtureScript(List<String> words) {
    this.words = List.copyOf(words);
  }

  /**
   * The empty script (exits 0 at once).
   *
   * @return a script with no words
   */
  public static FixtureScript create() {
    return new FixtureScript(List.of());
  }

  /**
   * The words passed to {@code fixture.sh}.
   *
   * @return the words in order, unmodifiable
   */
  public List<String> words() {
    return words;
  }

  /**
   * Appends {@code spawn count { body }}: start {@code count} background children, each running
   * {@code body}.
   *
   * @param count how many children, at least 0
   * @param body what each new process runs
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code count} is negative
   */
  public FixtureScript spawn(int count, FixtureScript body) {
    requireNonNegative("spawn count", count);
    return append(List.of("spawn", Integer.toString(count)), body);
  }

  /**
   * Appends {@code chain depth { body }}: a chain of {@code depth} processes below this one, every
   * level starting the next, then running {@code body}.
   *
   * @param depth how many levels, at least 0
   * @param body what every level runs after starting the next
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code depth} is negative
   */
  public FixtureScript chain(int depth, FixtureScript body) {
    requireNonNegative("chain depth", depth);
    return append(List.of("chain", Integer.toString(depth)), body);
  }

  /**
   * Appends {@code setsid { body }}: a child in a new session (an escapee) running {@code body};
   * exits 97 where util-linux {@code setsid(1)} is absent.
   *
   * @param body what each new process runs
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript setsid(FixtureScript body) {
    return append(List.of("setsid"), body);
  }

  /**
   * Appends {@code daemon { body }}: a double fork whose grandchild runs {@code body} and is
   * re-parented to init or the nearest subreaper at once.
   *
   * @param body what the re-parented grandchild runs
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript doubleFork(FixtureScript body) {
    return append(List.of("daemon"), body);
  }

  /**
   * Appends {@code ignore-term}: SIGTERM is ignored from here on, also by children started
   * afterwards.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript ignoreTerm() {
    return with("ignore-term");
  }

  /**
   * Appends {@code exit-on-term code}: on SIGTERM the process ends its current sleep and exits with
   * {@code code} (0-255).
   *
   * @param code the exit code, 0-255
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code code} is not within 0-255
   */
  public FixtureScript exitOnTerm(int code) {
    return with("exit-on-term", exitCode(code));
  }

  /**
   * Appends {@code close-stdin}: closes file descriptor 0.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript closeStdin() {
    return with("close-stdin");
  }

  /**
   * Appends {@code close-stdout}: closes file descriptor 1.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript closeStdout() {
    return with("close-stdout");
  }

  /**
   * Appends {@code close-stderr}: closes file descriptor 2.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript closeStderr() {
    return with("close-stderr");
  }

  /**
   * Appends {@code detach-stdio}: redirects descriptors 0-2 to {@code /dev/null}, so the process
   * stops holding its parent's pipes.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript detachStdio() {
    return with("detach-stdio");
  }

  /**
   * Appends {@code announce}: prints {@code pid <pid>} on stdout.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript announce() {
    return with("announce");
  }

  /**
   * Appends {@code ready}: prints {@code ready <pid>} on stdout once the children above are forked
   * (read it with {@link FixtureChild#awaitReady}).
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript ready() {
    return with("ready");
  }

  /**
   * Appends {@code print word}: prints {@code word} on stdout.
   *
   * @param word the word to print
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code word} is not one word of [A-Za-z0-9._:+-]
   */
  public FixtureScript print(String word) {
    if (!WORD.matcher(word).matches()) {
      throw new IllegalArgumentException("print takes one word of [A-Za-z0-9._:+-]: " + word);
    }
    return with("print", word);
  }

  /**
   * Appends {@code spin}: busy-loops forever on one core.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript spin() {
    return with("spin");
  }

  /**
   * Appends {@code write-forever}: writes lines to stdout forever; a closed pipe kills the process
   * by SIGPIPE (exit 141 as seen from Java).
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript writeForever() {
    return with("write-forever");
  }

  /**
   * Appends {@code write-until-epipe code}: ignores SIGPIPE, writes until a write fails with EPIPE,
   * prints {@code epipe <pid>} on stderr and exits with {@code code}.
   *
   * @param code the exit code after EPIPE, 0-255
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code code} is not within 0-255
   */
  public FixtureScript writeUntilEpipe(int code) {
    return with("write-until-epipe", exitCode(code));
  }

  /**
   * Appends {@code sleep seconds}: sleeps for {@code duration} (millisecond resolution).
   *
   * @param duration how long, not negative
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public FixtureScript sleep(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("sleep must not be negative: " + duration);
    }
    BigDecimal seconds = BigDecimal.valueOf(duration.toMillis()).movePointLeft(3);
    return with("sleep", seconds.stripTrailingZeros().toPlainString());
  }

  /**
   * Appends {@code wait}: waits for every background child.
   *
   * @return a new, longer script; this one is unchanged
   */
  public FixtureScript waitForChildren() {
    return with("wait");
  }

  /**
   * Appends {@code exit code}: exits with {@code code} (0-255).
   *
   * @param code the exit code, 0-255
   * @return a new, longer script; this one is unchanged
   * @throws IllegalArgumentException if {@code code} is not within 0-255
   */
  public FixtureScript exit(int code) {
    return with("exit", exitCode(code));
  }

  private FixtureScript with(String... more) {
    List<String> out = new ArrayList<>(words);
    out.addAll(List.of(more));
    return new FixtureScript(out);
  }

  private FixtureScript append(List<String> head, FixtureScript body) {
    List<String> out = new ArrayList<>(words);
    out.addAll(head);
    out.add("{");
    out.addAll(body.words);
    out.add("}");
    return new FixtureScript(out);
  }

  private static String exitCode(int code) {
    if (code < 0 || code > 255) {
      throw new IllegalArgumentException("exit codes are 0-255: " + code);
    }
    return Integer.toString(code);
  }

  private static void requireNonNegative(String what, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(what + " must not be negative: " + value);
    }
  }

  @Override
  public String toString() {
    return String.join(" ", words);
  }
}
