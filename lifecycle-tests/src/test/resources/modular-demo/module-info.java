// A user's application module: it names only lifecycle's API module, exactly as a user would.
module demo {
  requires dev.lifecycle.core;
}
