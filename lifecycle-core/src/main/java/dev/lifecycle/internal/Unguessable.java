package dev.lifecycle.internal;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Unguessable values (tree cookies, record tokens, name suffixes) read straight from the kernel's
 * CSPRNG, {@code /dev/urandom}: the source the JDK's default {@link SecureRandom} on Linux and
 * macOS (NativePRNG) reads as well, without its provider lookup and seeding, which a short-lived
 * CLI pays for in start-up time (tens of classes and a seeding read before the first cookie). Read
 * in blocks of {@value #POOL_SIZE} bytes; every byte is handed out once. Where {@code /dev/urandom}
 * cannot be read (Windows, a sandbox without it), a {@link SecureRandom} is used from then on.
 * Thread-safe.
 */
public final class Unguessable {
  private static final String URANDOM = "/dev/urandom";
  private static final int POOL_SIZE = 512;
  private static final byte[] POOL = new byte[POOL_SIZE]; // guarded by itself
  private static int poolPosition = POOL_SIZE; // guarded by POOL; POOL_SIZE: empty
  private static volatile boolean urandomFailed;

  private Unguessable() {}

  /**
   * {@code count} random bytes.
   *
   * @param count how many, 0 or more
   * @return a new array of {@code count} bytes from the kernel's CSPRNG (or a SecureRandom)
   */
  public static byte[] bytes(int count) {
    byte[] out = new byte[count];
    synchronized (POOL) {
      int done = 0;
      while (done < count && !urandomFailed) {
        if (poolPosition == POOL.length && !refill()) {
          break;
        }
        int n = Math.min(count - done, POOL.length - poolPosition);
        System.arraycopy(POOL, poolPosition, out, done, n);
        java.util.Arrays.fill(POOL, poolPosition, poolPosition + n, (byte) 0); // handed out once
        poolPosition += n;
        done += n;
      }
      if (done == count) {
        return out;
      }
    }
    Fallback.RANDOM.nextBytes(out);
    return out;
  }

  /** One open, read and close per {@value #POOL_SIZE} bytes: no descriptor is held open. */
  private static boolean refill() {
    try (InputStream in = new FileInputStream(URANDOM)) {
      if (in.readNBytes(POOL, 0, POOL.length) == POOL.length) {
        poolPosition = 0;
        return true;
      }
    } catch (IOException | SecurityException e) {
      // below: the SecureRandom from now on
    }
    urandomFailed = true;
    return false;
  }

  /**
   * A random long (64 random bits).
   *
   * @return the value
   */
  public static long nextLong() {
    byte[] b = bytes(8);
    long value = 0;
    for (byte x : b) {
      value = (value << 8) | (x & 0xff);
    }
    return value;
  }

  /**
   * A random (version 4) UUID in its 36-character text form, as {@link UUID#randomUUID()} gives.
   *
   * @return the text form
   */
  public static String uuid() {
    byte[] b = bytes(16);
    b[6] = (byte) ((b[6] & 0x0f) | 0x40); // version 4
    b[8] = (byte) ((b[8] & 0x3f) | 0x80); // IETF variant
    long msb = 0;
    long lsb = 0;
    for (int i = 0; i < 8; i++) {
      msb = (msb << 8) | (b[i] & 0xff);
      lsb = (lsb << 8) | (b[i + 8] & 0xff);
    }
    return new UUID(msb, lsb).toString();
  }

  /** Created only where /dev/urandom cannot be read. */
  private static final class Fallback {
    static final SecureRandom RANDOM = new SecureRandom();
  }
}
