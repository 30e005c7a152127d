/**
 * Durations and timers: {@link dev.lifecycle.time.Limit} (a duration that may be disabled, parsed
 * strictly and clamped visibly), guard timers that never keep the JVM alive ({@link
 * dev.lifecycle.time.Guards#arm}), escalations that do ({@link
 * dev.lifecycle.time.Guards#armEscalation}, which holds a non-daemon keep-alive thread), and
 * lease-based idle tracking ({@link dev.lifecycle.time.IdleTracker}).
 */
package dev.lifecycle.time;
