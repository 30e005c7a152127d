/**
 * The watchdog behind {@link dev.lifecycle.guard.Ceilings}: one daemon sampler thread for every
 * watched tree of the JVM, started on the first tree with a ceiling and idle (parked, no wakeup)
 * while no tree is watched. Not exported: trees, and workers for their own tree, register
 * themselves.
 */
package dev.lifecycle.guard.watchdog;
