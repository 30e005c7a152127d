package dev.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.ProcessPlatform;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The API of lifecycle-core as a module user sees it, read from the compiled classes and the
 * compiled module descriptor: which packages are exported to whom, the exact public top-level types
 * of each package exported to everyone (adding one is a deliberate act that edits this test), every
 * public or protected signature of those packages naming only types a module user can name (the
 * JDK's, slf4j's, or those of packages exported to everyone), and a thread-safety statement in the
 * first paragraph of every public type's javadoc.
 */
class PublicSurfaceTest {
  /** The API: what a user of the module reads, per package. */
  private static final Map<String, Set<String>> API =
      Map.of(
          "dev.lifecycle.broker",
          Set.of(
              "BackendExit",
              "BrokerClient",
              "BrokerConnection",
              "BrokerException",
              "BrokerLimits",
              "BrokerRequest",
              "BrokerRuntime",
              "BrokerSession",
              "BrokerState",
              "Connect",
              "RequestHandler",
              "ShutdownReason",
              "ShutdownReport"),
          "dev.lifecycle.guard",
          Set.of("Breach", "BreachHandler", "Ceilings", "Enforcement"),
          "dev.lifecycle.inventory",
          Set.of(
              "FoundTree",
              "Inventory",
              "Member",
              "Owner",
              "OwnerVerdict",
              "ReapReport",
              "StoreStatus"),
          "dev.lifecycle.probe",
          Set.of("Endpoint", "EndpointProbe", "ProbeResult"),
          "dev.lifecycle.process",
          Set.of(
              "Capabilities",
              "Containment",
              "ContainmentTier",
              "Liveness",
              "ProcessIdentity",
              "ProcessInfo",
              "ProcessPlatform",
              "ProcessPlatformProvider",
              "ProcessState",
              "ProcessTable",
              "Signal",
              "SignalResult",
              "SpawnOptions",
              "SupervisedProcess",
              "UnsafeSignalException"),
          "dev.lifecycle.record",
          Set.of(
              "ArtifactKind", "ReadResult", "RecordStore", "SessionRecord", "UnsafeStoreException"),
          "dev.lifecycle.tether",
          Set.of("Tether"),
          "dev.lifecycle.time",
          Set.of(
              "Guards",
              "IdleTracker",
              "Limit",
              "LimitFormatException",
              "TimerHandle",
              "TimerScheduler"),
          "dev.lifecycle.tree",
          Set.of(
              "Discovery",
              "ProcessTree",
              "SelfTermination",
              "SpawnedTrees",
              "TerminationReport",
              "TreeMember",
              "TreeOptions",
              "TreePlacement",
              "TreeView"),
          "dev.lifecycle.worker",
          Set.of("JobFile", "JobRecord", "Worker", "WorkerStatus"));

  /** Implementation shared with lifecycle's own modules only, and with which. */
  private static final Map<String, Set<String>> QUALIFIED =
      Map.of(
          "dev.lifecycle.internal",
          Set.of("dev.lifecycle.posix", "dev.lifecycle.testkit", "dev.lifecycle.mcp"),
          "dev.lifecycle.process.cgroup",
          Set.of("dev.lifecycle.posix", "dev.lifecycle.testkit"),
          "dev.lifecycle.process.procfs",
          Set.of("dev.lifecycle.posix"),
          "dev.lifecycle.process.spi",
          Set.of("dev.lifecycle.posix"));

  /** A sentence of the first javadoc paragraph that says how the type behaves across threads. */
  private static final Pattern THREAD_SAFETY =
      Pattern.compile(
          "(?i)thread-safe|from any thread|on any thread|one caller at a time|thread-confined");

  @Test
  void theModuleExportsTheApiToEveryoneAndTheRestOnlyToLifecyclesModules() throws Exception {
    ModuleDescriptor module = descriptor(classesOf(ProcessPlatform.class));
    Map<String, Set<String>> qualified = new TreeMap<>();
    Set<String> toEveryone = new TreeSet<>();
    for (ModuleDescriptor.Exports e : module.exports()) {
      if (e.isQualified()) {
        qualified.put(e.source(), e.targets());
      } else {
        toEveryone.add(e.source());
      }
    }
    assertThat(toEveryone).containsExactlyInAnyOrderElementsOf(API.keySet());
    assertThat(qualified).isEqualTo(new TreeMap<>(QUALIFIED));
    // process.jdk (the fallback platform) is loaded by name, guard.watchdog is reached through
    // trees only and tree.orphans (the orphan engine's seam) through the inventory only: none is
    // exported.
    assertThat(packagesOf(classesOf(ProcessPlatform.class)))
        .contains(
            "dev.lifecycle.process.jdk",
            "dev.lifecycle.guard.watchdog",
            "dev.lifecycle.tree.orphans")
        .hasSize(API.size() + QUALIFIED.size() + 3);
  }

  @Test
  void eachApiPackageHasExactlyTheseTopLevelPublicTypes() throws Exception {
    Path root = classesOf(ProcessPlatform.class);
    Map<String, Set<String>> found = topLevelPublicTypes(root, API.keySet());
    assertThat(found)
        .as("public top-level types per API package; edit API in this test to add one on purpose")
        .isEqualTo(new TreeMap<>(API));
  }

  @Test
  void everyPublicTypeStatesItsThreadSafetyInItsFirstJavadocParagraph() throws Exception {
    Path root = classesOf(ProcessPlatform.class);
    Path sources = root.resolve("../../src/main/java").normalize();
    assertThat(sources).as("core's main sources, beside its classes").isDirectory();
    Set<String> all = packagesOf(root);
    List<String> silent = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, Set<String>> e : topLevelPublicTypes(root, all).entrySet()) {
      for (String name : e.getValue()) {
        Path file = sources.resolve(e.getKey().replace('.', '/')).resolve(name + ".java");
        String first = firstJavadocParagraph(Files.readString(file), name);
        checked++;
        if (!THREAD_SAFETY.matcher(first).find()) {
          silent.add(e.getKey() + "." + name + ": " + first);
        }
      }
    }
    assertThat(checked).isGreaterThan(50);
    assertThat(silent).as("first javadoc paragraphs without a thread-safety statement").isEmpty();
  }

  @Test
  void aFirstParagraphIsReadUpToItsFirstParagraphBreakOrTag() {
    String source =
        "package p;\n\n/**\n * A thing. Immutable.\n *\n * <p>Thread-safe.\n */\n"
            + "@Deprecated\npublic final class Thing {}\n";
    String first = firstJavadocParagraph(source, "Thing");
    assertThat(first).isEqualTo("A thing. Immutable.");
    assertThat(THREAD_SAFETY.matcher(first).find()).isFalse();
    String joined = firstJavadocParagraph(source.replace("<p>", ""), "Thing");
    assertThat(joined).isEqualTo("A thing. Immutable. Thread-safe.");
    assertThat(THREAD_SAFETY.matcher(joined).find()).isTrue();
  }

  @Test
  void noExportedSignatureNamesATypeAModuleUserCannotName() throws Exception {
    Path root = classesOf(ProcessPlatform.class);
    Set<String> api = packagesExportedToEveryone(root);
    List<String> leaks = new ArrayList<>();
    for (Class<?> type : apiTypes(root, api)) {
      for (String leak : exposures(type, api)) {
        leaks.add(type.getName() + ": " + leak);
      }
    }
    assertThat(leaks).as("signatures naming a type a module user cannot name").isEmpty();
  }

  @Test
  void anExposureIsFound() throws Exception {
    Set<String> api = Set.of("dev.lifecycle.time");
    // Inside a type argument's wildcard bound too; a JDK nested type and a private method are fine.
    assertThat(exposures(Exposing.class, api))
        .containsExactly("platforms() returns dev.lifecycle.process.ProcessPlatform");
  }

  /** One public method naming ProcessPlatform (outside the api set given), two that are fine. */
  @SuppressWarnings("unused")
  public static class Exposing {
    public java.util.Optional<java.util.List<? extends ProcessPlatform>> platforms() {
      return java.util.Optional.empty();
    }

    public Thread.State state() {
      return Thread.State.NEW;
    }

    private ProcessPlatform hidden() {
      return null;
    }
  }

  /** The packages that hold a class. */
  static Set<String> packagesOf(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(".class"))
          .map(p -> root.relativize(p.getParent()).toString().replace('\\', '/').replace('/', '.'))
          .filter(pkg -> !pkg.isEmpty())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  /** Package to the simple names of its public top-level types, for the packages given. */
  static Map<String, Set<String>> topLevelPublicTypes(Path root, Set<String> packages)
      throws Exception {
    Map<String, Set<String>> out = new TreeMap<>();
    ClassLoader loader = PublicSurfaceTest.class.getClassLoader();
    for (String pkg : packages) {
      Path dir = root.resolve(pkg.replace('.', '/'));
      try (Stream<Path> list = Files.list(dir)) {
        for (Path file : list.sorted().toList()) {
          String name = file.getFileName().toString();
          if (!name.endsWith(".class") || name.contains("$") || name.equals("package-info.class")) {
            continue;
          }
          String simple = name.substring(0, name.length() - ".class".length());
          Class<?> type = Class.forName(pkg + "." + simple, false, loader);
          if (Modifier.isPublic(type.getModifiers())) {
            out.computeIfAbsent(pkg, k -> new TreeSet<>()).add(simple);
          }
        }
      }
    }
    return out;
  }

  /**
   * The text of the javadoc right before {@code public ... name}, up to its first {@code <p>},
   * block tag or end, in one line.
   */
  static String firstJavadocParagraph(String source, String name) {
    Matcher m =
        Pattern.compile(
                "/\\*\\*((?:(?!\\*/).)*?)\\*/\\s*(?:@\\w+(?:\\([^)]*\\))?\\s*)*public\\s+"
                    + "(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*"
                    + "(?:class|interface|enum|record|@interface)\\s+"
                    + Pattern.quote(name)
                    + "\\b",
                Pattern.DOTALL)
            .matcher(source);
    if (!m.find()) {
      return "";
    }
    String doc = m.group(1).replaceAll("(?m)^\\s*\\* ?", "");
    String first = doc.split("<p>|\\n\\s*@[a-z]", 2)[0];
    return first.trim().replaceAll("\\s+", " ");
  }

  static Path classesOf(Class<?> type) throws Exception {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  static ModuleDescriptor descriptor(Path root) throws IOException {
    try (InputStream in = Files.newInputStream(root.resolve("module-info.class"))) {
      return ModuleDescriptor.read(in);
    }
  }

  static Set<String> packagesExportedToEveryone(Path root) throws IOException {
    Set<String> api =
        descriptor(root).exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(api).as("packages exported to everyone").contains("dev.lifecycle.tree");
    return api;
  }

  /** Every public type of an exported package whose enclosing types are public too. */
  static List<Class<?>> apiTypes(Path root, Set<String> api) throws Exception {
    List<Class<?>> out = new ArrayList<>();
    ClassLoader loader = PublicSurfaceTest.class.getClassLoader();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".class")).sorted().toList();
    }
    for (Path file : files) {
      String relative = root.relativize(file).toString().replace('\\', '/');
      if (relative.equals("module-info.class")) {
        continue;
      }
      String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
      Class<?> type = Class.forName(name, false, loader);
      if (api.contains(type.getPackageName()) && isVisible(type)) {
        out.add(type);
      }
    }
    assertThat(out).as("API types under " + root).hasSizeGreaterThan(20);
    return out;
  }

  /** Public, and so is every type it is nested in (a protected nested type counts too). */
  private static boolean isVisible(Class<?> type) {
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (t.isAnonymousClass() || t.isLocalClass()) {
        return false;
      }
      int m = t.getModifiers();
      boolean nested = t.getEnclosingClass() != null;
      if (!Modifier.isPublic(m) && !(nested && Modifier.isProtected(m))) {
        return false;
      }
    }
    return true;
  }

  /** The types in {@code type}'s public and protected signatures that a module user cannot name. */
  static List<String> exposures(Class<?> type, Set<String> api) {
    List<String> out = new ArrayList<>();
    check("extends", type.getGenericSuperclass(), api, out);
    for (Type i : type.getGenericInterfaces()) {
      check("implements", i, api, out);
    }
    checkBounds("type parameter", type.getTypeParameters(), api, out);
    for (Field f : type.getDeclaredFields()) {
      if (isApi(f.getModifiers()) && !f.isSynthetic()) {
        check("field " + f.getName(), f.getGenericType(), api, out);
      }
    }
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      if (isApi(c.getModifiers()) && !c.isSynthetic()) {
        checkExecutable("constructor", c, api, out);
      }
    }
    for (Method m : type.getDeclaredMethods()) {
      if (isApi(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
        checkExecutable(m.getName() + "()", m, api, out);
        check(m.getName() + "() returns", m.getGenericReturnType(), api, out);
      }
    }
    return out;
  }

  private static boolean isApi(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static void checkExecutable(
      String what, Executable e, Set<String> api, List<String> out) {
    checkBounds(what + " type parameter", e.getTypeParameters(), api, out);
    for (Type p : e.getGenericParameterTypes()) {
      check(what + " parameter", p, api, out);
    }
    for (Type t : e.getGenericExceptionTypes()) {
      check(what + " throws", t, api, out);
    }
  }

  private static void checkBounds(
      String what, TypeVariable<?>[] variables, Set<String> api, List<String> out) {
    for (TypeVariable<?> v : variables) {
      for (Type bound : v.getBounds()) {
        check(what + " " + v.getName(), bound, api, out);
      }
    }
  }

  private static void check(String where, Type type, Set<String> api, List<String> out) {
    if (type == null || type instanceof TypeVariable<?>) {
      return; // a variable's bounds are checked where it is declared
    }
    if (type instanceof Class<?> c) {
      while (c.isArray()) {
        c = c.getComponentType();
      }
      if (!c.isPrimitive() && !isNameable(c, api)) {
        out.add(where + " " + c.getName());
      }
    } else if (type instanceof ParameterizedType p) {
      check(where, p.getOwnerType(), api, out);
      check(where, p.getRawType(), api, out);
      for (Type argument : p.getActualTypeArguments()) {
        check(where, argument, api, out);
      }
    } else if (type instanceof WildcardType w) {
      for (Type bound : w.getUpperBounds()) {
        check(where, bound, api, out);
      }
      for (Type bound : w.getLowerBounds()) {
        check(where, bound, api, out);
      }
    } else if (type instanceof GenericArrayType a) {
      check(where, a.getGenericComponentType(), api, out);
    } else {
      out.add(where + " unknown kind of type " + type);
    }
  }

  /** The JDK's public API, slf4j's, or a public type of a package exported to everyone. */
  private static boolean isNameable(Class<?> c, Set<String> api) {
    String pkg = c.getPackageName();
    if (pkg.startsWith("java.") || pkg.startsWith("javax.") || pkg.startsWith("org.slf4j")) {
      return isVisible(c);
    }
    return api.contains(pkg) && isVisible(c);
  }
}
