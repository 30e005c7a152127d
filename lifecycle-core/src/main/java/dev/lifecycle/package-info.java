/**
 * lifecycle: supervise process lifecycles so that nothing a program starts outlives its purpose.
 */
package dev.lifecycle;
