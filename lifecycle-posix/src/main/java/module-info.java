/**
 * The native process platform for lifecycle (JNA): {@code posix_spawn} into a new session,
 * kill/killpg, pidfd exit watching and reaping. Nothing needs to be called directly: {@link
 * dev.lifecycle.process.ProcessPlatform#get()} finds it through {@link
 * dev.lifecycle.process.ProcessPlatformProvider}.
 *
 * <p>On JDK 22 and later, allow JNA's native access with {@code --enable-native-access=com.sun.jna}
 * when JNA is on the module path ({@code ALL-UNNAMED} when it is on the class path); without it the
 * JDK prints a warning, and a later JDK may refuse.
 *
 * @provides dev.lifecycle.process.ProcessPlatformProvider
 */
module dev.lifecycle.posix {
  requires transitive dev.lifecycle.core;
  requires com.sun.jna;
  requires org.slf4j;

  exports dev.lifecycle.posix;

  provides dev.lifecycle.process.ProcessPlatformProvider with
      dev.lifecycle.posix.PosixPlatformProvider;
}
