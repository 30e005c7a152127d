// The same application, naming the SDK's bundle module too: that brings its JSON binding (Jackson 3
// and the schema validator) into the boot layer without --add-modules. Main.java is the one of
// modular-mcp-demo.
module mcpdemo {
  requires dev.lifecycle.mcp;
  requires io.modelcontextprotocol.sdk.mcp;
}
