package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the documentation honest, in every build. For README.md, CHANGELOG.md and docs/*.md: every
 * relative link resolves to a file of the repository, and every {@code #anchor} to a heading (by
 * GitHub's slug rules) or an {@code <a id>} of the file it points to; no document speaks of the
 * project's own history (issue numbers, work sessions, measurement rounds, commit hashes: the
 * changelog and the commit messages hold that). For README.md and docs/guide.md: every fenced code
 * block is either run by a test ({@code <!-- run by SomeTest: id -->} on the line before it, where
 * SomeTest's source names the id) or says why not ({@code <!-- not run: reason -->}). docs/testing.md
 * describes the markers.
 */
class DocsCheckTest {

    /** Surefire runs in the module's directory; the docs are the repository's. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    /** The project's own history, which belongs in CHANGELOG.md's versions and in commit messages. */
    static final List<Pattern> HISTORY = List.of(
            Pattern.compile("\\bissues? #?\\d+", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bsessions? \\d+", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b(this|work|that|earlier|later|previous|next) session\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final) round\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bround \\d+\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bthis branch\\b", Pattern.CASE_INSENSITIVE),
            // a commit hash: 7 to 40 hex digits with a letter and a digit, not part of a longer word or a UUID
            Pattern.compile("(?<![\\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\\w-])"));

    private static final Pattern RUN_MARKER = Pattern.compile("^<!-- run by (\\w+): ([\\w-]+) -->$");
    private static final Pattern NOT_RUN_MARKER = Pattern.compile("^<!-- not run: .+ -->$");

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        for (Path doc : docs()) {
            for (String target : links(read(doc))) {
                String problem = problem(doc, target);
                if (problem != null) {
                    broken.add(ROOT.relativize(doc) + ": " + target + " (" + problem + ")");
                }
            }
        }
        assertEquals(List.of(), broken, "links that do not resolve");
    }

    @Test
    void noDocSpeaksOfTheProjectsHistory() {
        List<String> found = new ArrayList<>();
        for (Path doc : docs()) {
            String[] lines = read(doc).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                for (Pattern history : HISTORY) {
                    Matcher m = history.matcher(lines[i]);
                    if (m.find()) {
                        found.add(ROOT.relativize(doc) + ":" + (i + 1) + ": \"" + m.group() + "\" in: " + lines[i].strip());
                    }
                }
            }
        }
        assertEquals(List.of(), found, "history belongs in CHANGELOG.md's versions and the commit messages");
    }

    @Test
    void everyCodeBlockOfTheReadmeAndTheGuideIsRunOrSaysWhyNot() throws IOException {
        List<String> unmarked = new ArrayList<>();
        for (String name : List.of("README.md", "docs/guide.md")) {
            String[] lines = read(ROOT.resolve(name)).split("\n", -1);
            boolean inBlock = false;
            for (int i = 0; i < lines.length; i++) {
                if (!FENCE.matcher(lines[i]).find()) {
                    continue;
                }
                if (!inBlock) {
                    String marker = previousNonBlank(lines, i);
                    String problem = markerProblem(marker);
                    if (problem != null) {
                        unmarked.add(name + ":" + (i + 1) + ": " + problem);
                    }
                }
                inBlock = !inBlock;
            }
            assertTrue(!inBlock, name + " has an unclosed code block");
        }
        assertEquals(List.of(), unmarked, "code blocks without '<!-- run by SomeTest: id -->' or '<!-- not run: reason -->'");
    }

    @Test
    void theChecksCatchWhatTheyAreFor() {
        for (String history : List.of("as issue 24 asked", "in session 7", "the fourth round", "round 2 gave", "commit c697675",
                "measured on this branch")) {
            assertTrue(HISTORY.stream().anyMatch(p -> p.matcher(history).find()), history);
        }
        for (String fine : List.of("session.timeout.ms", "a group session expires", "KAFKA-19763", "1048588 bytes",
                "member a-864e8c60-5153", "3 rounds each, alternated", "a fresh cluster per round", "the defaced wheel")) {
            assertTrue(HISTORY.stream().noneMatch(p -> p.matcher(fine).find()), fine);
        }
        assertEquals(List.of("what-the-purgatory-guarantees", "waiters-a-future-or-a-blocking-wait", "12-kafkas-api", "keys-or-positions-1"),
                List.of(slug("What the purgatory guarantees"), slug("`Waiters`: a future, or a blocking wait"), slug("12. Kafka's API"),
                        anchors("# Keys or positions\n## Keys or positions\n").get(1)));
        assertEquals(List.of("guide.md#pitfalls", "x.png"), links("See [the guide](guide.md#pitfalls), ![a chart](x.png), `[not](a link)`.\n"
                + "```\n[nor](this)\n```\n"));
    }

    private static String markerProblem(String marker) throws IOException {
        if (NOT_RUN_MARKER.matcher(marker).matches()) {
            return null;
        }
        Matcher run = RUN_MARKER.matcher(marker);
        if (!run.matches()) {
            return "no marker before the block";
        }
        Path test;
        try (Stream<Path> files = Files.walk(ROOT, 12)) {
            test = files.filter(p -> p.toString().contains("/src/test/java/") && p.getFileName().toString().equals(run.group(1) + ".java"))
                    .findFirst().orElse(null);
        }
        if (test == null) {
            return "no test " + run.group(1);
        }
        return read(test).contains("\"" + run.group(2) + "\"") ? null : run.group(1) + " does not name " + run.group(2);
    }

    private static String previousNonBlank(String[] lines, int i) {
        for (int j = i - 1; j >= 0; j--) {
            if (!lines[j].isBlank()) {
                return lines[j].strip();
            }
        }
        return "";
    }

    /** What is wrong with a link from doc, or null. */
    private static String problem(Path doc, String target) {
        if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
            return null; // http:, https:, mailto: and the like
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
            return "no such file";
        }
        if (anchor == null) {
            return null;
        }
        if (!resolved.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        return anchors(read(resolved)).contains(anchor) ? null : "no such anchor";
    }

    /** The link targets of a Markdown text, outside code blocks and inline code. */
    static List<String> links(String markdown) {
        List<String> targets = new ArrayList<>();
        boolean inBlock = false;
        for (String line : markdown.split("\n", -1)) {
            if (FENCE.matcher(line).find()) {
                inBlock = !inBlock;
                continue;
            }
            if (inBlock) {
                continue;
            }
            Matcher m = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    /** The anchors of a Markdown text: its headings' slugs, numbered as GitHub numbers repeats, and its HTML anchors. */
    static List<String> anchors(String markdown) {
        List<String> anchors = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inBlock = false;
        for (String line : markdown.split("\n", -1)) {
            if (FENCE.matcher(line).find()) {
                inBlock = !inBlock;
                continue;
            }
            if (inBlock) {
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int repeats = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(repeats == 0 ? slug : slug + "-" + repeats);
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /** GitHub's heading slug: the text without markup, lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
    }

    private static Set<Path> docs() {
        Set<Path> docs = new LinkedHashSet<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        docs.removeIf(p -> !Files.exists(p));
        return docs;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
