// The outcome every consumer shares (JUnit 4 is not run here: no Vintage on JUnit 6).
return evaluate(new File(itSources, 'consumer-outcome.groovy'))
