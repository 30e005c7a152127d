/**
 * Examples that run: {@link dev.lifecycle.examples.TreeDemo}, a broker ({@code broker}), a client
 * CLI ({@code cli}) and a detached worker ({@code worker}); the scenario demo of the README's main
 * command ({@code Demo}) drives them from the tests' sources. {@code examples/README.md} maps the
 * seed scenarios to the tests that exercise them and lists what building the examples found in the
 * library.
 */
package dev.lifecycle.examples;
