package io.purgatory.kafka.brokertests;

import io.purgatory.kafka.brokertests.TestOutcomes.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's tests on stock Kafka beside the same tests on the module, test by test. A test that disagrees in the
 * first pair of runs is judged by a second pair (its class rerun on both sides): it is a module-only failure
 * only if it passed on stock and failed on the module both times; if the second pair agrees it is recorded as
 * flaky. A test known to race with itself in Kafka's own code is not judged: its disagreement is reported as
 * such. Immutable once built.
 */
final class Comparison {

    /** Tests that passed on stock and failed on the module, in both pairs of runs: the module's bugs. */
    final Map<String, String> moduleOnly = new TreeMap<>();
    /** Tests that failed on stock (in the last pair of runs that ran them), with stock's and the module's outcome. */
    final Map<String, String> failingOnStock = new TreeMap<>();
    /** Tests that disagreed in the first pair of runs and agreed in the second. */
    final Map<String, String> flaky = new TreeMap<>();
    /** Tests known to race with themselves that disagreed, with their outcomes: reported, not judged. */
    final Map<String, String> racy = new TreeMap<>();
    /** Tests a side did not run (not discovered, or skipped): they must be the same on both sides. */
    final Set<String> missingOnOneSide = new TreeSet<>();
    final long stockTests;
    final long moduleTests;

    private Comparison(TestOutcomes stock, TestOutcomes module) {
        this.stockTests = stock.byTest().size();
        this.moduleTests = module.byTest().size();
    }

    /** The test classes to rerun: those with a test that disagreed in the first pair. */
    static Set<String> classesToRerun(TestOutcomes stock, TestOutcomes module) {
        Set<String> classes = new TreeSet<>();
        for (String id : union(stock, module)) {
            Outcome s = stock.get(id);
            Outcome m = module.get(id);
            if (s != null && m != null && s.passed() != m.passed()) {
                classes.add(TestOutcomes.testClass(id));
            }
        }
        return classes;
    }

    /**
     * Compares the first pair of runs, judging disagreements by the rerun pair (empty if nothing disagreed).
     *
     * @param racyTests the tests known to race with themselves in Kafka's own code, whose disagreements are not judged
     */
    static Comparison of(TestOutcomes stock, TestOutcomes module, TestOutcomes stockRerun, TestOutcomes moduleRerun,
                         Set<String> racyTests) {
        Comparison c = new Comparison(stock, module);
        for (String id : union(stock, module)) {
            Outcome s = stock.get(id);
            Outcome m = module.get(id);
            if (s == null || m == null) {
                c.missingOnOneSide.add(id);
                continue;
            }
            if (s.passed() != m.passed()) {
                Outcome s2 = stockRerun.get(id);
                Outcome m2 = moduleRerun.get(id);
                if (racyTests.contains(id)) {
                    c.racy.put(id, "first runs: stock " + describe(s) + ", module " + describe(m)
                            + (s2 == null || m2 == null ? "" : "; rerun: stock " + describe(s2) + ", module " + describe(m2)));
                    continue;
                }
                if (s2 != null && m2 != null && s2.passed() == m2.passed()) {
                    c.flaky.put(id, "first runs: stock " + describe(s) + ", module " + describe(m)
                            + "; rerun: both " + describe(s2));
                    if (!s2.passed()) {
                        c.failingOnStock.put(id, "stock: " + s2.failure() + " | module: " + m2.failure());
                    }
                    continue;
                }
                if (s.passed() && s2 != null && s2.passed() && m2 != null && !m2.passed()) {
                    c.moduleOnly.put(id, m.failure());
                    continue;
                }
                // stock failed and the module passed, twice (or the rerun lost the test): stock's failure
                c.failingOnStock.put(id, "stock: " + s.failure() + " | module: " + describe(m)
                        + (s2 == null || m2 == null ? " (the rerun did not run it)" : ""));
            } else if (!s.passed()) {
                c.failingOnStock.put(id, "stock: " + s.failure() + " | module: " + m.failure());
            }
        }
        return c;
    }

    private static String describe(Outcome o) {
        return o.passed() ? "passed" : "failed (" + o.failure() + ")";
    }

    private static Set<String> union(TestOutcomes a, TestOutcomes b) {
        Set<String> ids = new TreeSet<>(a.byTest().keySet());
        ids.addAll(b.byTest().keySet());
        return ids;
    }

    /** A plain-text account of the comparison, for the build log and the line's summary file. */
    String report(String title, List<String> testClasses) {
        List<String> out = new ArrayList<>();
        out.add(title + ": " + testClasses.size() + " test classes, " + stockTests + " tests on stock, "
                + moduleTests + " on the module");
        section(out, "module-only failures (passed on stock, failed on the module, twice)", moduleOnly);
        section(out, "failing on stock Kafka too", failingOnStock);
        section(out, "flaky (disagreed once, agreed on a rerun of the class)", flaky);
        section(out, "racing with itself in Kafka's own test, not judged", racy);
        if (!missingOnOneSide.isEmpty()) {
            out.add("  run on one side only: " + missingOnOneSide);
        }
        return String.join(System.lineSeparator(), out);
    }

    private static void section(List<String> out, String heading, Map<String, String> tests) {
        out.add("  " + heading + ": " + tests.size());
        tests.forEach((id, why) -> out.add("    " + id + " -- " + why));
    }
}
