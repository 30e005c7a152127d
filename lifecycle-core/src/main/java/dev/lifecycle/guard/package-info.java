/**
 * The runaway guard: ceilings per process tree on memory, process count and CPU, and a spin rule
 * ({@link dev.lifecycle.guard.Ceilings}), enforced by the kernel where the cgroup v2 controllers
 * allow it and by one shared sampler thread elsewhere ({@link dev.lifecycle.guard.Enforcement}). A
 * breach ({@link dev.lifecycle.guard.Breach}) is logged, handed to a {@link
 * dev.lifecycle.guard.BreachHandler} and, unless the handler keeps the tree, ends the tree through
 * its staged termination; the report names the breach.
 */
package dev.lifecycle.guard;
