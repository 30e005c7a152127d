/**
 * Examples that run: {@link dev.lifecycle.examples.Demo} (the README's main command), {@link
 * dev.lifecycle.examples.TreeDemo}, a broker ({@code broker}), a client CLI ({@code cli}) and a
 * detached worker ({@code worker}). {@code examples/README.md} maps the seed scenarios to the tests
 * that exercise them and lists what building the examples found in the library.
 */
package dev.lifecycle.examples;
