package io.purgatory.demo.broker.http;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric families docs/demo.md's table under {@code ## Metrics} lists: every name in backticks
 * in the first cell of a row (a row may name several families that share labels). Stateless.
 */
final class DocumentedMetrics {
    private static final Pattern NAME = Pattern.compile("`([a-z_:][a-z0-9_:]*)`");

    private DocumentedMetrics() {
    }

    static Set<String> families() throws IOException {
        String markdown = Files.readString(Path.of("..", "docs", "demo.md"));
        int start = markdown.indexOf("\n## Metrics\n");
        assertTrue(start >= 0, "docs/demo.md has a heading '## Metrics'");
        Set<String> names = new TreeSet<>();
        boolean inTable = false;
        for (String line : markdown.substring(start + 1).lines().skip(1).toList()) {
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            String firstCell = line.split("\\|", -1)[1];
            Matcher name = NAME.matcher(firstCell);
            while (name.find()) {
                names.add(name.group(1));
            }
        }
        return names;
    }
}
