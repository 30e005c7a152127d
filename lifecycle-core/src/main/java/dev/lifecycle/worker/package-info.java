/**
 * Detached background jobs with a wall-clock ceiling ({@link dev.lifecycle.worker.Worker}): a
 * terminal status latched exactly once and persisted atomically ({@link
 * dev.lifecycle.worker.JobFile}); on expiry the status is latched before the worker ends its own
 * process tree, so a completion during the grace cannot overwrite it.
 */
package dev.lifecycle.worker;
