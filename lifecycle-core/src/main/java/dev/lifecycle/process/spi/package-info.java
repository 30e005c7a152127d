/**
 * What only an implementation of {@link dev.lifecycle.process.ProcessPlatform} calls: the signal
 * guards. Exported only to lifecycle's own platform module ({@code dev.lifecycle.posix}); not an
 * API, it changes without notice.
 */
package dev.lifecycle.process.spi;
