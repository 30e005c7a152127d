/**
 * Broker building blocks: a shared helper that starts once, serves many concurrent clients, and
 * goes away by itself when idle without ever deleting a successor's state.
 *
 * <ul>
 *   <li>{@link dev.lifecycle.broker.BrokerRuntime}: the broker side (bounded startup, lease-based
 *       idle shutdown, one ordered shutdown pass however many triggers race).
 *   <li>{@link dev.lifecycle.broker.BrokerClient}: the client side (single-flight {@code ensure()}
 *       across threads and processes).
 *   <li>{@link dev.lifecycle.broker.Connect}: connect to a freshly spawned backend, reclaiming its
 *       tree if the connect fails.
 * </ul>
 *
 * Every timeout is a {@link dev.lifecycle.time.Limit}; {@link dev.lifecycle.broker.BrokerLimits}
 * names the defaults and the configuration keys.
 */
package dev.lifecycle.broker;
