/**
 * Implementation pieces shared by several packages of lifecycle-core (atomic file replacement, file
 * locks). Not an API: nothing outside lifecycle's own modules may use it, and it changes without
 * notice.
 */
package dev.lifecycle.internal;
