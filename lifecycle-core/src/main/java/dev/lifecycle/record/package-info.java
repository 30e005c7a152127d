/**
 * Session records: small files that tell clients where a shared helper (a broker, a daemon)
 * listens, who owns it, and which files go away with it. {@link dev.lifecycle.record.RecordStore}
 * publishes them atomically, clears them only for their owner under a lock, and lets readers decide
 * on proof: a record is reclaimed only when its owner is proven gone, and an unreadable one is
 * quarantined, never silently dropped.
 */
package dev.lifecycle.record;
