// A consumer's outcome, evaluated by each consumer's verify.groovy with its basedir: clean tests
// pass; each leak is reported (test, process, evidence, tier) and killed; nothing the build started
// is left.
// Survivors first, so a failed assertion below leaves nothing running either.
def left = []
new File('/proc').eachFileMatch(~/\d+/) { dir ->
  try {
    def cmd = new File(dir, 'cmdline').text.replace('\0' as char, ' ' as char)
    def stat = new File(dir, 'stat').text
    def state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    if (cmd.contains(new File(basedir, 'target/leak-sleep').path) && state != 'Z') {
      left << dir.name
    }
  } catch (IOException ignored) {
  }
}
left.each { pid -> ['kill', '-9', pid].execute().waitFor() }

def reports = new File(basedir, 'target/surefire-reports')
def xml = { name -> new File(reports, "TEST-com.example.${name}.xml").text }

assert xml('CleanTest').contains('failures="0"') && xml('CleanTest').contains('errors="0"')

def annotated = xml('AnnotatedLeakTest')
assert annotated.contains('leaksAChild() [leaksAChild()] leaked 1 process')
assert annotated.contains('leak-sleep 301')
// a child left running: a member of the check's cgroup where one is writable, else a descendant
assert (annotated =~ /why: in the check's cgroup/ && annotated =~ /attribution: CGROUP/) ||
    (annotated =~ /why: descendant of this JVM/ && annotated =~ /attribution: EVIDENCE/)
assert annotated.contains('killed, so later tests start clean')

def auto = xml('AutodetectedLeakTest')
assert auto.contains('tests="2"') && auto.contains('failures="1"')
assert auto.contains('leak-sleep 302')

assert left.isEmpty() : "leaked processes survived the kit: ${left}"
return true
