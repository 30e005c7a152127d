/**
 * Linux cgroup v2 primitives: locate the unified hierarchy from {@code /proc/self/mountinfo}, pick
 * a writable parent with the exact reason when there is none, create a child, move a process in,
 * list members, kill, freeze, wait for {@code populated 0} by notification, remove.
 */
package dev.lifecycle.process.cgroup;
