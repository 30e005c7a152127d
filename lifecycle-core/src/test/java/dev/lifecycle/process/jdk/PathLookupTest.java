package dev.lifecycle.process.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fallback's program lookup, with Windows rules (';' and PATHEXT) on a fake PATH. */
class PathLookupTest {
  @TempDir Path dir;

  private Path executable(String name) throws Exception {
    Path file = Files.createFile(dir.resolve(name));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    return file;
  }

  @Test
  void pathextFindsCommandsWithoutTheirExtension() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path cmd = executable("bin/cmd.EXE");
    Path tool = executable("bin/tool.CMD");
    List<String> extensions = JdkPlatform.pathExtensions(".COM;.EXE;.BAT;.CMD");
    String path = dir.resolve("missing") + ";" + bin;
    assertThat(JdkPlatform.findExecutable("cmd", null, path, ";", extensions)).contains(cmd);
    assertThat(JdkPlatform.findExecutable("tool", null, path, ";", extensions)).contains(tool);
    assertThat(JdkPlatform.findExecutable("tool.CMD", null, path, ";", extensions)).contains(tool);
    assertThat(JdkPlatform.findExecutable("nothere", null, path, ";", extensions)).isEmpty();
    // without PATHEXT (POSIX rules) the bare name is not found
    assertThat(JdkPlatform.findExecutable("tool", null, bin.toString(), ":", List.of())).isEmpty();
    // a name with a directory part gets the extensions too
    assertThat(JdkPlatform.findExecutable("bin/tool", dir, "", ";", extensions)).contains(tool);
  }

  @Test
  void pathextDefaultsAndBlanks() {
    assertThat(JdkPlatform.pathExtensions(null)).containsExactly(".COM", ".EXE", ".BAT", ".CMD");
    assertThat(JdkPlatform.pathExtensions(" ")).containsExactly(".COM", ".EXE", ".BAT", ".CMD");
    assertThat(JdkPlatform.pathExtensions(".EXE;;.PS1 ;")).containsExactly(".EXE", ".PS1");
  }

  @Test
  void posixLookupSkipsNonExecutablesAndEmptyEntriesMeanTheDirectory() throws Exception {
    Files.createFile(dir.resolve("plain"));
    Path run = executable("run");
    assertThat(JdkPlatform.findExecutable("plain", null, dir.toString(), ":", List.of())).isEmpty();
    assertThat(JdkPlatform.findExecutable("run", dir, ":/nonexistent", ":", List.of()))
        .hasValueSatisfying(found -> assertThat(found.normalize()).isEqualTo(run));
  }
}
