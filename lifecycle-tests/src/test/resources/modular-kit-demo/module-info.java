// A user's test-support module: the kit brings core, JUnit's API and AssertJ (requires transitive).
module kitdemo {
  requires dev.lifecycle.testkit;
}
