/**
 * The inventory's seam to the termination engines of {@link dev.lifecycle.tree}, for trees left
 * behind by an owner that is gone. Not exported: not API, and not reachable from other modules.
 */
package dev.lifecycle.tree.orphans;
