package dev.lifecycle.modules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.posix.PosixPlatformProvider;
import dev.lifecycle.process.ProcessPlatform;
import dev.lifecycle.process.ProcessPlatformProvider;
import dev.lifecycle.testkit.FixtureChild;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every package of a published module is a decision: exported to everyone (API), exported only to
 * lifecycle's own modules, or kept inside. A package added without that decision fails here.
 */
class ModuleLayoutTest {
  private static final Set<String> OWN_MODULES =
      Set.of(
          "dev.lifecycle.core",
          "dev.lifecycle.posix",
          "dev.lifecycle.testkit",
          "dev.lifecycle.mcp");

  @Test
  void coreExportsItsApiAndKeepsItsInternals() throws Exception {
    ModuleDescriptor core = descriptor(ProcessPlatform.class);
    assertThat(exported(core))
        .containsOnlyKeys(
            "dev.lifecycle.broker",
            "dev.lifecycle.guard",
            "dev.lifecycle.internal",
            "dev.lifecycle.inventory",
            "dev.lifecycle.probe",
            "dev.lifecycle.process",
            "dev.lifecycle.process.cgroup",
            "dev.lifecycle.process.procfs",
            "dev.lifecycle.process.spi",
            "dev.lifecycle.record",
            "dev.lifecycle.tether",
            "dev.lifecycle.time",
            "dev.lifecycle.tree",
            "dev.lifecycle.worker");
    // Only the native platform reads /proc besides core's own platforms: the SPI is closed.
    assertThat(exported(core).get("dev.lifecycle.process.procfs"))
        .containsExactly("dev.lifecycle.posix");
    assertThat(exported(core).get("dev.lifecycle.process.spi"))
        .containsExactly("dev.lifecycle.posix");
    assertThat(exported(core).get("dev.lifecycle.process.cgroup"))
        .containsExactlyInAnyOrder("dev.lifecycle.posix", "dev.lifecycle.testkit");
    assertThat(exported(core).get("dev.lifecycle.internal"))
        .containsExactlyInAnyOrder(
            "dev.lifecycle.posix", "dev.lifecycle.testkit", "dev.lifecycle.mcp");
    // The watchdog is reached through trees only; the orphan engine through the inventory only.
    assertThat(internal(core))
        .containsExactlyInAnyOrder(
            "dev.lifecycle.process.jdk",
            "dev.lifecycle.guard.watchdog",
            "dev.lifecycle.tree.orphans");
    assertThat(core.uses()).containsExactly(ProcessPlatformProvider.class.getName());
    // Core provides no service: its fallback is loaded by name, so reads never load providers.
    assertThat(core.provides()).isEmpty();
    assertThat(core.requires().stream().map(ModuleDescriptor.Requires::name)).contains("org.slf4j");
  }

  @Test
  void posixProvidesThePlatform() throws Exception {
    ModuleDescriptor posix = descriptor(PosixPlatformProvider.class);
    assertThat(exported(posix)).containsOnlyKeys("dev.lifecycle.posix");
    assertThat(internal(posix)).isEmpty();
    assertThat(posix.provides())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.service()).isEqualTo(ProcessPlatformProvider.class.getName());
              assertThat(p.providers()).containsExactly(PosixPlatformProvider.class.getName());
            });
  }

  @Test
  void theTestKitExportsBothPackages() throws Exception {
    ModuleDescriptor kit = descriptor(FixtureChild.class);
    assertThat(exported(kit))
        .containsOnlyKeys("dev.lifecycle.testkit", "dev.lifecycle.testkit.container");
    assertThat(internal(kit)).isEmpty();
  }

  @Test
  void qualifiedExportsNameOnlyOurOwnModules() throws Exception {
    for (Class<?> type :
        new Class<?>[] {ProcessPlatform.class, PosixPlatformProvider.class, FixtureChild.class}) {
      for (Exports e : descriptor(type).exports()) {
        assertThat(OWN_MODULES).as(e.toString()).containsAll(e.targets());
      }
    }
  }

  /** Exported package to its targets (empty: everyone). */
  private static Map<String, Set<String>> exported(ModuleDescriptor module) {
    Map<String, Set<String>> out = new TreeMap<>();
    module.exports().forEach(e -> out.put(e.source(), e.targets()));
    return out;
  }

  private static Set<String> internal(ModuleDescriptor module) {
    Set<String> out = new TreeSet<>(module.packages());
    out.removeAll(exported(module).keySet());
    return out;
  }

  /** The descriptor compiled into the jar or classes directory that holds {@code type}. */
  private static ModuleDescriptor descriptor(Class<?> type) throws Exception {
    Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ModuleFinder.of(location).findAll().iterator().next().descriptor();
  }
}
