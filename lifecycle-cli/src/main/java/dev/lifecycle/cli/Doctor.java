package dev.lifecycle.cli;

import dev.lifecycle.process.Capabilities;
import dev.lifecycle.process.Containment;
import dev.lifecycle.process.ProcessPlatform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a JVM started here gets from lifecycle, and how to get the stronger tier. */
final class Doctor {
  private Doctor() {}

  static Map<String, String> facts() {
    Map<String, String> out = new LinkedHashMap<>();
    ProcessPlatform platform = ProcessPlatform.get();
    Capabilities caps = platform.capabilities();
    Containment containment = Containment.current();
    out.put("platform", caps.platform());
    out.put("groupSignals", String.valueOf(caps.groupSignals()));
    out.put("tier", containment.tier().name());
    out.put("tierReason", containment.reason());
    out.put("cgroupParent", containment.parent().map(Path::toString).orElse(""));
    out.put("kernel", firstLine("/proc/sys/kernel/osrelease"));
    out.put("libc", libc());
    out.put("cgroup2Mount", cgroup2Mount());
    out.put(
        "java", System.getProperty("java.version") + " (" + System.getProperty("java.home") + ")");
    int feature = Runtime.version().feature();
    out.put(
        "jvmFlags",
        feature >= 22
            ? "--enable-native-access=ALL-UNNAMED (JNA; an executable jar's manifest can say it)"
            : "none");
    out.put(
        "stronger",
        containment.tier().name().equals("CGROUP")
            ? "already the strongest tier"
            : "for the CGROUP tier run as root, in a systemd unit with Delegate=yes (or under"
                + " systemd-run --user --scope -p Delegate=yes), in a container with a writable"
                + " cgroup, or set LIFECYCLE_CGROUP_PARENT to a cgroup v2 directory delegated to"
                + " this user");
    return out;
  }

  static String text(Map<String, String> facts) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, String> e : facts.entrySet()) {
      out.append(String.format("%-13s %s%n", e.getKey(), e.getValue()));
    }
    return out.toString();
  }

  static String json(Map<String, String> facts) {
    Json j = new Json().begin();
    for (Map.Entry<String, String> e : facts.entrySet()) {
      j.field(e.getKey(), e.getValue());
    }
    return j.end().toString();
  }

  private static String firstLine(String file) {
    try {
      List<String> lines = Files.readAllLines(Path.of(file));
      return lines.isEmpty() ? "" : lines.get(0).trim();
    } catch (IOException | RuntimeException e) {
      return "unknown (" + file + " unreadable)";
    }
  }

  /** glibc names its version in the dynamic loader's path-free banner; read it from ldd. */
  private static String libc() {
    try {
      Process p =
          new ProcessBuilder("getconf", "GNU_LIBC_VERSION").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 && !out.isEmpty() ? out : "not glibc (or getconf missing)";
    } catch (IOException e) {
      return "unknown (getconf missing)";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String cgroup2Mount() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        int dash = line.indexOf(" - ");
        if (dash > 0 && line.startsWith("cgroup2 ", dash + 3)) {
          return line.split(" ")[4];
        }
      }
      return "none (no cgroup v2 mounted)";
    } catch (IOException | RuntimeException e) {
      return "unknown (/proc/self/mountinfo unreadable)";
    }
  }
}
