package io.purgatory.demo.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prometheus text (format 0.0.4) read back into metric families, as a scraper would: each
 * {@code # HELP} and {@code # TYPE} line opens or describes a family, each sample line belongs to the
 * family opened before it. A line that fits none of these fails the test. The Prometheus Java client
 * writes this format but has no parser for it, hence this one, for tests.
 *
 * <p>Immutable after {@link #parse}.
 */
final class Exposition {
    /** One sample line: its name (a family's name, or with {@code _count}, {@code _sum}...), labels and value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** A metric family: its name as in {@code # TYPE}, type, help text and samples. */
    record Family(String name, String type, String help, List<Sample> samples) {
    }

    private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    private static final Pattern COMMENT = Pattern.compile("# (HELP|TYPE) (" + NAME + ") (.*)");
    private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(?:\\{(.*)\\})? (-?[0-9.]+(?:E-?[0-9]+)?|NaN|\\+Inf|-Inf)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\.)*)\",?");

    private final Map<String, Family> families;

    private Exposition(Map<String, Family> families) {
        this.families = families;
    }

    static Exposition parse(String text) {
        Map<String, String> helps = new LinkedHashMap<>();
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        String current = null;
        for (String line : text.split("\n")) {
            Matcher comment = COMMENT.matcher(line);
            Matcher sample = SAMPLE.matcher(line);
            if (comment.matches()) {
                current = comment.group(2);
                (comment.group(1).equals("HELP") ? helps : types).put(current, comment.group(3));
                samples.putIfAbsent(current, new ArrayList<>());
            } else if (sample.matches() && current != null) {
                assertTrue(sample.group(1).startsWith(current), "sample " + line + " outside its family " + current);
                samples.get(current).add(new Sample(sample.group(1), labels(line, sample.group(2)), Double.parseDouble(sample.group(3))));
            } else {
                fail("not Prometheus text: " + line);
            }
        }
        Map<String, Family> families = new LinkedHashMap<>();
        samples.forEach((name, list) -> families.put(name, new Family(name, types.get(name), helps.get(name), List.copyOf(list))));
        return new Exposition(families);
    }

    private static Map<String, String> labels(String line, String text) {
        Map<String, String> labels = new TreeMap<>();
        if (text == null) {
            return labels;
        }
        Matcher label = LABEL.matcher(text);
        int end = 0;
        while (label.find() && label.start() == end) {
            labels.put(label.group(1), label.group(2));
            end = label.end();
        }
        assertEquals(text.length(), end, "labels that do not parse: " + line);
        return labels;
    }

    Map<String, Family> families() {
        return families;
    }

    /** The family named {@code name}, which must be there. */
    Family family(String name) {
        Family family = families.get(name);
        assertNotNull(family, "no metric family " + name + " among " + families.keySet());
        return family;
    }

    /**
     * The value of the one sample named {@code sampleName} with exactly these labels, given as
     * name-value pairs; the family is the sample's name without a summary's {@code _count} or {@code _sum}.
     */
    double value(String sampleName, String... labelPairs) {
        Map<String, String> labels = new TreeMap<>();
        for (int i = 0; i < labelPairs.length; i += 2) {
            labels.put(labelPairs[i], labelPairs[i + 1]);
        }
        String familyName = families.containsKey(sampleName) ? sampleName : sampleName.replaceFirst("_(count|sum)$", "");
        List<Sample> matching = family(familyName).samples().stream()
                .filter(s -> s.name().equals(sampleName) && s.labels().equals(labels)).toList();
        assertEquals(1, matching.size(), "samples " + sampleName + labels + " in " + family(familyName));
        return matching.get(0).value();
    }
}
