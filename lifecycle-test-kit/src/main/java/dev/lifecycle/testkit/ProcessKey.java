package dev.lifecycle.testkit;

import dev.lifecycle.process.ProcessInfo;

/** A process by pid and start time: a reused pid is another key. */
record ProcessKey(long pid, long startTime) {
  static ProcessKey of(ProcessInfo p) {
    return new ProcessKey(p.pid(), p.startTime());
  }
}
