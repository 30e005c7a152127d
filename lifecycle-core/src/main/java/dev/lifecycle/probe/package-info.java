/**
 * Bounded reachability probes for the endpoints that session records name: a Unix domain socket or
 * a TCP address. A probe answers "does something accept a connection there, within this bound"; a
 * miss is evidence, never proof that the owner is gone.
 */
package dev.lifecycle.probe;
