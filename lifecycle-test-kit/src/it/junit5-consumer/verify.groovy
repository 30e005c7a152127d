// The outcome every consumer shares, then JUnit 4's: the Platform listener cannot fail the test; it
// reports and kills.
def outcome = evaluate(new File(itSources, 'consumer-outcome.groovy'))
def log = new File(basedir, 'build.log').text
assert log.contains('[lifecycle] LEAK FAILURE')
assert log.contains('leak-sleep 303')
return outcome
