package dev.lifecycle.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of the README and of {@code docs/} compiles against the library as it
 * is, so a document cannot drift from the API. A block that follows a {@code <!-- quickstart:Name
 * -->} line is the file {@code quickstart/Name.java} verbatim (that file is compiled, and run by
 * {@code QuickStartsTest}). Any other block is compiled as it stands when it declares a type or
 * imports, else as the body of a method that may throw; both with the imports below, so a snippet
 * shows only the imports a reader could not guess.
 */
class DocSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path QUICK_STARTS = Path.of("dev", "lifecycle", "examples", "quickstart");
  private static final Pattern FENCE =
      Pattern.compile("(?m)^```java[ \\t]*\\n(.*?)^```[ \\t]*$", Pattern.DOTALL);
  private static final Pattern MARKER = Pattern.compile("<!-- quickstart:(\\w+) -->\\s*$");
  private static final Pattern TYPE =
      Pattern.compile(
          "(?m)^(import |package |(public |final |abstract )*(class|interface|record|enum|@interface) )");
  private static final String IMPORTS =
      Stream.of(
              "dev.lifecycle.broker",
              "dev.lifecycle.guard",
              "dev.lifecycle.inventory",
              "dev.lifecycle.process",
              "dev.lifecycle.record",
              "dev.lifecycle.tether",
              "dev.lifecycle.time",
              "dev.lifecycle.tree",
              "dev.lifecycle.worker",
              "java.io",
              "java.nio.file",
              "java.time",
              "java.util",
              "java.util.concurrent")
          .map(p -> "import " + p + ".*;")
          .collect(Collectors.joining(" "));

  @TempDir Path out;

  @Test
  void everyJavaBlockOfTheDocsCompiles() throws IOException {
    List<Block> blocks = blocks();
    List<String> mismatches = new ArrayList<>();
    List<JavaFileObject> units = new ArrayList<>();
    for (Block block : blocks) {
      if (block.quickStart() != null) {
        Path file = quickStart(block.quickStart());
        if (file == null) {
          mismatches.add(block.where() + ": no quickstart/" + block.quickStart() + ".java");
        } else if (!Files.readString(file, StandardCharsets.UTF_8).equals(block.code())) {
          mismatches.add(block.where() + ": differs from " + ROOT.relativize(file));
        }
      } else {
        units.add(unit(block, units.size()));
      }
    }
    assertThat(mismatches).as("quick starts included verbatim").isEmpty();
    assertThat(blocks.stream().filter(b -> b.quickStart() != null).count())
        .as("the README's three quick starts")
        .isEqualTo(3);
    assertThat(compile(units)).as("diagnostics of the doc snippets").isEmpty();
  }

  private record Block(Path doc, int line, String code, String quickStart) {
    String where() {
      return ROOT.relativize(doc) + ":" + line;
    }
  }

  private static List<Block> blocks() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    docs.add(ROOT.resolve("examples/README.md"));
    List<Block> blocks = new ArrayList<>();
    for (Path doc : docs) {
      String text = Files.readString(doc, StandardCharsets.UTF_8);
      Matcher fence = FENCE.matcher(text);
      while (fence.find()) {
        String before = text.substring(0, fence.start()).stripTrailing();
        String lastLine = before.substring(before.lastIndexOf('\n') + 1);
        Matcher marker = MARKER.matcher(lastLine);
        int line = (int) text.substring(0, fence.start()).chars().filter(c -> c == '\n').count();
        blocks.add(
            new Block(doc, line + 1, fence.group(1), marker.find() ? marker.group(1) : null));
      }
    }
    assertThat(blocks).as("java blocks in %s", docs).isNotEmpty();
    return blocks;
  }

  private static Path quickStart(String name) {
    for (String tree : List.of("main", "test")) {
      Path file =
          ROOT.resolve("examples/src")
              .resolve(tree)
              .resolve("java")
              .resolve(QUICK_STARTS)
              .resolve(name + ".java");
      if (Files.isRegularFile(file)) {
        return file;
      }
    }
    return null;
  }

  /** One compilation unit per block, each in a package of its own so names never collide. */
  private static JavaFileObject unit(Block block, int index) {
    String pkg = "snippet" + index;
    String source;
    String type;
    if (TYPE.matcher(block.code()).find()) {
      Matcher named =
          Pattern.compile(
                  "(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)")
              .matcher(block.code());
      type = named.find() ? named.group(1) : "Snippet";
      // Prepended on the block's first line, so the compiler's line numbers are the block's.
      source = "package " + pkg + "; " + IMPORTS + " " + block.code();
    } else {
      type = "Snippet";
      source =
          "package "
              + pkg
              + "; "
              + IMPORTS
              + " class Snippet { void snippet() throws Exception {"
              + block.code()
              + "\n}}";
    }
    URI uri = URI.create("string:///" + pkg + "/" + type + ".java");
    return new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }

      @Override
      public String toString() {
        return block.where();
      }
    };
  }

  private List<String> compile(List<JavaFileObject> units) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
      List<String> options =
          List.of(
              "-classpath",
              System.getProperty("java.class.path"),
              "-d",
              out.toString(),
              "-proc:none",
              "-Xlint:none");
      StringWriter log = new StringWriter();
      javac.getTask(log, files, diagnostics, options, null, units).call();
      List<String> problems = new ArrayList<>();
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        if (d.getKind() == Diagnostic.Kind.ERROR) {
          problems.add(
              "block at "
                  + d.getSource()
                  + ", its line "
                  + d.getLineNumber()
                  + ": "
                  + d.getMessage(Locale.ROOT));
        }
      }
      return problems;
    }
  }
}
