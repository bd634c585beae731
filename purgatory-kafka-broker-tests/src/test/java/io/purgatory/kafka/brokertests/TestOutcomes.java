package io.purgatory.kafka.brokertests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The outcome of every test in one JUnit XML report, by test id ({@code class#name}, the name as JUnit
 * reports it, with a parameterised test's arguments). Immutable.
 */
final class TestOutcomes {

    private final Map<String, Outcome> byTest;

    private TestOutcomes(Map<String, Outcome> byTest) {
        this.byTest = Collections.unmodifiableMap(byTest);
    }

    /** A test's outcome: passed, or failed with the first non-blank line of its failure. Skipped tests are not recorded. */
    record Outcome(boolean passed, String failure) {
    }

    static TestOutcomes read(Path report) throws IOException {
        NodeList cases;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            cases = factory.newDocumentBuilder().parse(report.toFile()).getElementsByTagName("testcase");
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("unreadable JUnit report " + report + ": " + e.getMessage(), e);
        }
        Map<String, Outcome> byTest = new LinkedHashMap<>();
        for (int i = 0; i < cases.getLength(); i++) {
            Element testCase = (Element) cases.item(i);
            String base = testCase.getAttribute("classname") + "#" + testCase.getAttribute("name");
            String id = base;
            for (int n = 2; byTest.containsKey(id); n++) {
                id = base + " (" + n + ")";
            }
            Element problem = firstChild(testCase, "failure", "error", "skipped");
            if (problem == null) {
                byTest.put(id, new Outcome(true, ""));
            } else if (!problem.getTagName().equals("skipped")) {
                String message = problem.getAttribute("message");
                if (message.isEmpty()) {
                    message = problem.getAttribute("type");
                }
                byTest.put(id, new Outcome(false, message.lines().map(String::strip).filter(l -> !l.isEmpty())
                        .findFirst().orElse("")));
            }
        }
        return new TestOutcomes(byTest);
    }

    private static Element firstChild(Element parent, String... names) {
        NodeList children = parent.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            Node child = children.item(i);
            if (child instanceof Element element && Set.of(names).contains(element.getTagName())) {
                return element;
            }
        }
        return null;
    }

    Map<String, Outcome> byTest() {
        return byTest;
    }

    Set<String> failed() {
        Set<String> failed = new TreeSet<>();
        byTest.forEach((id, outcome) -> {
            if (!outcome.passed()) {
                failed.add(id);
            }
        });
        return failed;
    }

    long passedCount() {
        return byTest.values().stream().filter(Outcome::passed).count();
    }

    /** The test's outcome, or null if the run has no such test (not discovered, or skipped). */
    Outcome get(String id) {
        return byTest.get(id);
    }

    static String testClass(String id) {
        return id.substring(0, id.indexOf('#'));
    }
}
