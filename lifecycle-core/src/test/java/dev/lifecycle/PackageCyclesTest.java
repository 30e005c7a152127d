package dev.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessPlatform;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of lifecycle-core form no cycle: read from the compiled classes (every class name in
 * a constant pool, descriptors and signatures included), so an import hidden behind a fully
 * qualified name counts too. A cycle makes the packages one unit that can only change together.
 */
class PackageCyclesTest {
  private static final Pattern OUR_CLASS =
      Pattern.compile("dev/lifecycle/(?:[a-z0-9_]+/)*[A-Z][A-Za-z0-9_$]*");

  @Test
  void corePackagesFormNoCycle() throws Exception {
    Map<String, Map<String, String>> graph = dependencies(classesOf(ProcessPlatform.class));
    // The reading works: these edges exist (an implementation depends on its SPI).
    assertThat(graph).containsKeys("dev.lifecycle.process", "dev.lifecycle.tree");
    assertThat(graph.get("dev.lifecycle.process.jdk")).containsKey("dev.lifecycle.process");
    assertThat(graph.get("dev.lifecycle.tree")).containsKey("dev.lifecycle.process");

    assertThat(cycles(graph)).as(describe(graph, cycles(graph))).isEmpty();
  }

  @Test
  void theSpiPackageNamesNoImplementation() throws Exception {
    Map<String, Map<String, String>> graph = dependencies(classesOf(ProcessPlatform.class));
    assertThat(graph.get("dev.lifecycle.process"))
        .doesNotContainKeys("dev.lifecycle.process.jdk", "dev.lifecycle.process.procfs");
  }

  @Test
  void theToolkitAndTheSignalGuardsSitAtTheBottom() throws Exception {
    Map<String, Map<String, String>> graph = dependencies(classesOf(ProcessPlatform.class));
    // internal is used by every package and uses none; process.spi serves platforms only.
    assertThat(graph.get("dev.lifecycle.internal")).as("internal uses").isEmpty();
    assertThat(graph.get("dev.lifecycle.process.spi")).containsOnlyKeys("dev.lifecycle.process");
    Map<String, String> spiUsers = new TreeMap<>();
    graph.forEach(
        (from, edges) -> {
          if (edges.containsKey("dev.lifecycle.process.spi")) {
            spiUsers.put(from, edges.get("dev.lifecycle.process.spi"));
          }
        });
    assertThat(spiUsers).containsOnlyKeys("dev.lifecycle.process.jdk");
  }

  @Test
  void onlyTheBuiltInPlatformReadsProcThroughTheProcfsPackage() throws Exception {
    Map<String, Map<String, String>> graph = dependencies(classesOf(ProcessPlatform.class));
    Map<String, String> readers = new TreeMap<>();
    graph.forEach(
        (from, edges) -> {
          String edge = edges.get("dev.lifecycle.process.procfs");
          if (edge != null) {
            readers.put(from, edge);
          }
        });
    // Trees, the tether, records and brokers read processes through ProcessPlatform only.
    assertThat(readers).containsOnlyKeys("dev.lifecycle.process.jdk");
  }

  @Test
  void theArchitectureTableListsExactlyWhatEachPackageUses() throws Exception {
    Map<String, Set<String>> compiled = new TreeMap<>();
    dependencies(classesOf(ProcessPlatform.class))
        .forEach(
            (from, edges) -> {
              Set<String> uses = new TreeSet<>();
              edges.keySet().forEach(to -> uses.add(shortName(to)));
              compiled.put(shortName(from), uses);
            });
    Path doc = Path.of("..", "docs", "ARCHITECTURE.md");
    assertThat(documentedUses(Files.readAllLines(doc)))
        .as("the package table of %s (left) against the compiled classes (right)", doc)
        .isEqualTo(compiled);
  }

  @Test
  void aCycleIsFound() {
    Map<String, Map<String, String>> graph = new TreeMap<>();
    graph.put("a", Map.of("b", "A1"));
    graph.put("b", Map.of("c", "B1"));
    graph.put("c", Map.of("a", "C1"));
    graph.put("d", Map.of("a", "D1"));
    assertThat(cycles(graph)).containsExactly(Set.of("a", "b", "c"));
  }

  private static Path classesOf(Class<?> type) throws Exception {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /** Package to the packages it uses, each with one class that shows the edge. */
  private static Map<String, Map<String, String>> dependencies(Path root) throws IOException {
    Map<String, Map<String, String>> graph = new TreeMap<>();
    List<Path> classes;
    try (Stream<Path> files = Files.walk(root)) {
      classes =
          files
              .filter(p -> p.toString().endsWith(".class"))
              .filter(p -> !p.getFileName().toString().equals("module-info.class"))
              .toList();
    }
    assertThat(classes).as("class files under " + root).hasSizeGreaterThan(50);
    for (Path file : classes) {
      String name = root.relativize(file).toString().replace('\\', '/');
      String from = packageOf(name);
      Map<String, String> edges = graph.computeIfAbsent(from, k -> new TreeMap<>());
      for (String used : classNames(file)) {
        String to = packageOf(used);
        if (!to.equals(from)) {
          edges.putIfAbsent(to, name.replace(".class", "") + " -> " + used);
        }
      }
    }
    return graph;
  }

  private static String shortName(String pkg) {
    return pkg.substring("dev.lifecycle.".length());
  }

  /**
   * The rows of the table headed {@code | package | uses (of ours) |}: each package named in the
   * first cell (outside parentheses) to the packages named in the second, {@code none} for none.
   */
  private static Map<String, Set<String>> documentedUses(List<String> lines) {
    Pattern name = Pattern.compile("`([a-z.]+)`");
    Map<String, Set<String>> out = new TreeMap<>();
    int row = lines.indexOf("| package | uses (of ours) |") + 2; // past the header and the rule
    assertThat(row).as("the package table's header").isGreaterThan(1);
    for (; row < lines.size() && lines.get(row).startsWith("|"); row++) {
      String[] cells = lines.get(row).split("\\|");
      String packages =
          cells[1].contains("(") ? cells[1].substring(0, cells[1].indexOf('(')) : cells[1];
      Set<String> uses = new TreeSet<>();
      Matcher used = name.matcher(cells[2]);
      while (used.find()) {
        uses.add(used.group(1));
      }
      assertThat(uses.isEmpty())
          .as("row %s: no package named means none", row)
          .isEqualTo(cells[2].strip().equals("none"));
      Matcher each = name.matcher(packages);
      while (each.find()) {
        out.put(each.group(1), uses);
      }
    }
    return out;
  }

  private static String packageOf(String internalName) {
    return internalName.substring(0, internalName.lastIndexOf('/')).replace('/', '.');
  }

  /** Every class of ours the constant pool names: class entries, descriptors, signatures. */
  private static Set<String> classNames(Path file) throws IOException {
    Set<String> out = new TreeSet<>();
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(raw)) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IOException("not a class file: " + file);
      }
      in.readUnsignedShort(); // minor
      in.readUnsignedShort(); // major
      int count = in.readUnsignedShort();
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> {
            Matcher m = OUR_CLASS.matcher(in.readUTF());
            while (m.find()) {
              out.add(m.group());
            }
          }
          case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
          case 15 -> in.skipNBytes(3);
          case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
          case 5, 6 -> {
            in.skipNBytes(8);
            i++; // takes two slots
          }
          default -> throw new IOException("constant pool tag " + tag + " in " + file);
        }
      }
    }
    return out;
  }

  /** The strongly connected components of more than one package (Tarjan). */
  static List<Set<String>> cycles(Map<String, Map<String, String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> out = new ArrayList<>();
    int[] next = {0};
    for (String node : graph.keySet()) {
      if (!index.containsKey(node)) {
        connect(node, graph, index, low, stack, onStack, out, next);
      }
    }
    return out;
  }

  private static void connect(
      String node,
      Map<String, Map<String, String>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> out,
      int[] next) {
    index.put(node, next[0]);
    low.put(node, next[0]);
    next[0]++;
    stack.push(node);
    onStack.add(node);
    for (String to : graph.getOrDefault(node, Map.of()).keySet()) {
      if (!index.containsKey(to)) {
        connect(to, graph, index, low, stack, onStack, out, next);
        low.put(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.contains(to)) {
        low.put(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node).equals(index.get(node))) {
      Set<String> component = new TreeSet<>();
      String member;
      do {
        member = stack.pop();
        onStack.remove(member);
        component.add(member);
      } while (!member.equals(node));
      if (component.size() > 1) {
        out.add(component);
      }
    }
  }

  private static String describe(Map<String, Map<String, String>> graph, List<Set<String>> found) {
    StringBuilder text = new StringBuilder("package cycles:");
    for (Set<String> cycle : found) {
      text.append("\n  ").append(cycle);
      for (String from : cycle) {
        graph.getOrDefault(from, Map.of()).entrySet().stream()
            .filter(e -> cycle.contains(e.getKey()))
            .forEach(e -> text.append("\n    ").append(e.getValue()));
      }
    }
    return text.toString();
  }
}
