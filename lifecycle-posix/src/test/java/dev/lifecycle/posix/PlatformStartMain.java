package dev.lifecycle.posix;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import dev.lifecycle.process.ProcessPlatform;

/**
 * Run by {@link JnaSearchPathTest}, {@link JnaBootLibraryTest} and {@link ProviderTest}: starts the
 * platform (JNA and every binding the first spawn needs), then prints JNA's search path, its boot
 * path, the stub it loaded and the largest resident size of any child this JVM has waited for
 * ({@code getrusage(RUSAGE_CHILDREN).ru_maxrss}: 0 while it started none).
 */
public final class PlatformStartMain {
  private PlatformStartMain() {}

  interface C extends Library {
    int getrusage(int who, Memory usage);
  }

  public static void main(String[] args) {
    System.out.println(ProcessPlatform.get().capabilities().platform());
    System.out.println("path=" + System.getProperty(JnaSearchPath.PROPERTY));
    System.out.println("boot=" + System.getProperty(JnaBootLibrary.BOOT_PATH));
    System.out.println("jnidispatch.path=" + System.getProperty("jnidispatch.path"));
    Memory usage = new Memory(144);
    usage.clear();
    if (Native.load("c", C.class).getrusage(-1, usage) != 0) { // RUSAGE_CHILDREN
      throw new IllegalStateException("getrusage failed");
    }
    System.out.println("children_maxrss=" + usage.getLong(32)); // after two struct timevals
  }
}
