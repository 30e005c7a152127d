/**
 * Process trees: a supervised child with everything it started, observed as one unit ({@link
 * dev.lifecycle.tree.ProcessTree}) and ended by one staged escalation (TERM, grace, KILL, verify,
 * sweep escapees) that returns a {@link dev.lifecycle.tree.TerminationReport}. {@link
 * dev.lifecycle.tree.SelfTermination} ends the calling JVM's own tree and then the JVM.
 */
package dev.lifecycle.tree;
