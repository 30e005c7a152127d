/**
 * The process SPI: what the library needs from the operating system ({@link
 * dev.lifecycle.process.ProcessPlatform}), and the values it speaks in: identities that survive pid
 * reuse, tri-state liveness, signals with their results, and one-pass process-table snapshots.
 * Implementations: the JNA platform of {@code lifecycle-posix} and the pure-JDK fallback in {@code
 * dev.lifecycle.process.jdk}.
 */
package dev.lifecycle.process;
