/**
 * Parent-death tethers ({@link dev.lifecycle.tether.Tether}): process trees that are ended by a
 * sidecar when the supervising JVM dies, even by SIGKILL.
 */
package dev.lifecycle.tether;
