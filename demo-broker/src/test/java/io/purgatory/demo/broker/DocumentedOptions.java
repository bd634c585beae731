package io.purgatory.demo.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks a command's options against its table in docs/demo.md, where each row starts
 * {@code | `--name LABEL` | default |}: the same options, each with the default the command line
 * applies, and a help text that shows that default. Used by demo-broker's and demo-client's tests;
 * stateless.
 */
public final class DocumentedOptions {
    private static final Pattern ROW = Pattern.compile("^\\| `(--[a-z-]+)[^`]*` \\| `?([^`|]*?)`? ?\\|");

    private DocumentedOptions() {
    }

    /**
     * Asserts that the first table after the heading {@code ## section} in docs/demo.md lists
     * exactly the options of {@code spec} (help and version aside), in any order, each with its default.
     */
    public static void assertDocumented(CommandSpec spec, String section) throws IOException {
        Map<String, String> documented = table(Files.readString(Path.of("..", "docs", "demo.md")), "## " + section);
        Map<String, String> defaults = new LinkedHashMap<>();
        for (OptionSpec option : spec.options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            defaults.put(option.longestName(), option.defaultValue() == null ? "" : option.defaultValue());
            assertTrue(option.defaultValue() == null || String.join(" ", option.description()).contains("Default: " + option.defaultValue()),
                    () -> "the help of " + option.longestName() + " shows its default");
        }
        assertEquals(defaults.keySet(), documented.keySet(), "the options in docs/demo.md's table under '## " + section + "'");
        assertEquals(defaults, documented, "the defaults in docs/demo.md's table under '## " + section + "'");
    }

    /** Option name to default, from the rows of the first table after {@code heading}. */
    private static Map<String, String> table(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, () -> "docs/demo.md has a heading '" + heading + "'");
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : markdown.substring(start + 1).lines().skip(1).toList()) {
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                rows.put(row.group(1), row.group(2));
            }
        }
        return rows;
    }
}
