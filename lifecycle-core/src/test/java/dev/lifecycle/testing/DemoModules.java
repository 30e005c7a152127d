package dev.lifecycle.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.ToolProvider;

/**
 * The demo applications of the module-path tests: compiled from test resources against a module
 * path of the jars that hold given classes. Stateless.
 */
public final class DemoModules {
  private DemoModules() {}

  /** The jar (or classes directory) that {@code type} was loaded from. */
  public static Path locationOf(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("no location for " + type, e);
    }
  }

  /** {@code entries}, then {@code more}, as one module or class path. */
  public static String path(List<Path> entries, Path... more) {
    List<String> all = new ArrayList<>();
    entries.forEach(p -> all.add(p.toString()));
    for (Path p : more) {
      all.add(p.toString());
    }
    return String.join(File.pathSeparator, all);
  }

  /**
   * Copies each resource of {@code owner} (a value of {@code files}) to its source file (the key)
   * under {@code sources}, and compiles them for release 17 into {@code classes}.
   *
   * @return {@code classes}
   */
  public static Path compile(
      Class<?> owner, Map<String, String> files, Path sources, Path classes, String modulePath)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of("--release", "17", "--module-path", modulePath, "-d", classes.toString()));
    for (Map.Entry<String, String> file : files.entrySet()) {
      Path target = sources.resolve(file.getKey());
      Files.createDirectories(target.getParent());
      try (InputStream in = owner.getResourceAsStream(file.getValue())) {
        assertThat(in).as("resource " + file.getValue()).isNotNull();
        Files.copy(in, target);
      }
      args.add(target.toString());
    }
    int rc =
        ToolProvider.getSystemJavaCompiler().run(null, null, null, args.toArray(String[]::new));
    assertThat(rc).as("javac exit code for " + sources).isZero();
    return classes;
  }
}
