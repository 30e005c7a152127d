package dev.lifecycle.cli;

import dev.lifecycle.inventory.FoundTree;
import dev.lifecycle.inventory.Member;
import dev.lifecycle.inventory.ReapReport;
import dev.lifecycle.inventory.StoreStatus;
import dev.lifecycle.process.ProcessIdentity;
import dev.lifecycle.record.ReadResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The inventory, the sweep plan and the sweep's reports, as text a person reads or as JSON. */
final class Render {
  private static final int COMMAND_MAX = 70;

  private Render() {}

  static String table(List<FoundTree> trees, boolean includeDetached) {
    if (trees.isEmpty()) {
      return "no lifecycle trees on this machine\n";
    }
    StringBuilder out = new StringBuilder();
    for (FoundTree t : trees) {
      double cpu = 0;
      long rss = 0;
      boolean cpuKnown = false;
      for (Member m : t.members()) {
        if (m.cpuShare() >= 0) {
          cpu += m.cpuShare();
          cpuKnown = true;
        }
        rss += Math.max(0, m.residentBytes());
      }
      out.append(t.kind())
          .append(' ')
          .append(t.id())
          .append(t.detached() ? "  DETACHED" : "")
          .append('\n');
      out.append("  owner ")
          .append(t.owner().identity().map(Render::identity).orElse("(none named)"))
          .append(": ")
          .append(t.owner().verdict())
          .append(" (")
          .append(t.owner().reason())
          .append(")\n");
      out.append("  age ")
          .append(age(t.age()))
          .append(", ")
          .append(t.members().size())
          .append(t.members().size() == 1 ? " process" : " processes")
          .append(", cpu ")
          .append(cpuKnown ? percent(cpu) : "-")
          .append(", rss ")
          .append(bytes(rss))
          .append(", reap: ")
          .append(t.whyKept(includeDetached).map(w -> "no, " + w).orElse("YES, owner proven gone"))
          .append('\n');
      members(t.members(), out);
    }
    return out.toString();
  }

  /** Members as a tree by parentage: a member whose parent is a member is indented under it. */
  private static void members(List<Member> members, StringBuilder out) {
    Set<Long> pids = new HashSet<>();
    Map<Long, List<Member>> children = new HashMap<>();
    for (Member m : members) {
      pids.add(m.pid());
    }
    for (Member m : members) {
      children
          .computeIfAbsent(
              pids.contains(m.ppid()) ? m.ppid() : 0L, k -> new java.util.ArrayList<>())
          .add(m);
    }
    print(children, 0L, 2, out);
  }

  private static void print(
      Map<Long, List<Member>> children, long parent, int depth, StringBuilder out) {
    for (Member m : children.getOrDefault(parent, List.of())) {
      out.append(" ".repeat(depth * 2))
          .append(
              String.format(
                  "%-7d %-9s %6s %8s  ",
                  m.pid(),
                  m.state(),
                  m.cpuShare() < 0 ? "-" : percent(m.cpuShare()),
                  m.residentBytes() < 0 ? "-" : bytes(m.residentBytes())))
          .append(shorten(m.command()))
          .append('\n');
      print(children, m.pid(), depth + 1, out);
    }
  }

  static String json(List<FoundTree> trees, List<StoreStatus> stores, boolean includeDetached) {
    Json j = new Json().begin().beginArray("trees");
    for (FoundTree t : trees) {
      tree(j, t, includeDetached);
    }
    j.endArray().beginArray("stores");
    for (StoreStatus s : stores) {
      store(j, s);
    }
    return j.endArray().end().toString();
  }

  static String reapJson(List<ReapReport> reports, boolean dryRun) {
    Json j = new Json().begin().field("dryRun", dryRun).beginArray("trees");
    for (ReapReport r : reports) {
      j.begin().field("id", r.tree().id()).field("kind", r.tree().kind().name());
      j.field(
          "action",
          r.termination().isPresent()
              ? (r.ended() ? "ended" : "failed")
              : r.outcome().startsWith("would") ? "would end" : "kept");
      j.field("outcome", r.outcome());
      r.termination()
          .ifPresent(
              t ->
                  j.field("endedBy", t.endedBy().name())
                      .field("killed", t.killed().size())
                      .field("survivors", t.survivors().size()));
      j.end();
    }
    return j.endArray().end().toString();
  }

  private static void tree(Json j, FoundTree t, boolean includeDetached) {
    j.begin()
        .field("kind", t.kind().name())
        .field("id", t.id())
        .field("cgroup", t.cgroup().map(Object::toString).orElse(""))
        .field("cookie", t.cookie())
        .field("detached", t.detached())
        .field("ageMillis", t.age().toMillis())
        .field("reap", t.whyKept(includeDetached).isEmpty())
        .field("keptBecause", t.whyKept(includeDetached).orElse(""));
    j.key("owner");
    j.begin()
        .field("pid", t.owner().identity().map(ProcessIdentity::pid).orElse(-1L))
        .field("startTime", t.owner().identity().map(ProcessIdentity::startTime).orElse(-1L))
        .field("bootId", t.owner().identity().map(ProcessIdentity::bootId).orElse(""))
        .field("verdict", t.owner().verdict().name())
        .field("reason", t.owner().reason())
        .end();
    j.beginArray("members");
    for (Member m : t.members()) {
      j.begin()
          .field("pid", m.pid())
          .field("ppid", m.ppid())
          .field("startTime", m.identity().startTime())
          .field("state", m.state().name())
          .field("cpuShare", m.cpuShare())
          .field("residentBytes", m.residentBytes())
          .field("command", m.command())
          .end();
    }
    j.endArray().end();
  }

  private static void store(Json j, StoreStatus s) {
    j.begin().field("directory", s.directory().toString()).field("problem", s.problem().orElse(""));
    j.beginArray("records");
    for (ReadResult r : s.records()) {
      j.begin().field("name", r.name()).field("status", r.status().name());
      r.record().ifPresent(rec -> j.field("ownerPid", rec.owner().pid()));
      j.end();
    }
    j.endArray().end();
  }

  static String stores(List<StoreStatus> stores) {
    StringBuilder out = new StringBuilder();
    for (StoreStatus s : stores) {
      out.append("STORE ").append(s.directory());
      if (s.problem().isPresent()) {
        out.append(": ").append(s.problem().get()).append('\n');
        continue;
      }
      out.append(": ").append(s.records().size()).append(" records\n");
      for (ReadResult r : s.records()) {
        out.append("  ").append(r.name()).append(' ').append(r.status());
        r.record().ifPresent(rec -> out.append(" owner ").append(identity(rec.owner())));
        out.append('\n');
      }
    }
    return out.toString();
  }

  static String identity(ProcessIdentity id) {
    return id.pid() + (id.startTime() >= 0 ? " started at tick " + id.startTime() : "");
  }

  static String age(Duration d) {
    long s = d.toSeconds();
    return s < 120
        ? s + "s"
        : s < 7200 ? (s / 60) + "m" : s < 172800 ? (s / 3600) + "h" : (s / 86400) + "d";
  }

  static String percent(double share) {
    return String.format("%.1f%%", share * 100);
  }

  static String bytes(long b) {
    return b < 10 * 1024 * 1024
        ? (b / 1024) + "K"
        : b < 10L * 1024 * 1024 * 1024
            ? (b / (1024 * 1024)) + "M"
            : (b / (1024L * 1024 * 1024)) + "G";
  }

  /** One line: a script passed as {@code sh -c} text (the tether's) holds newlines. */
  private static String shorten(String command) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < command.length() && out.length() < COMMAND_MAX; i++) {
      char c = command.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        if (out.length() > 0 && out.charAt(out.length() - 1) != ' ') {
          out.append(' ');
        }
      } else {
        out.append(c);
      }
    }
    return out.length() < COMMAND_MAX || command.length() <= COMMAND_MAX
        ? out.toString()
        : out.substring(0, COMMAND_MAX - 3) + "...";
  }
}
