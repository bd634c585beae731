package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's three embedding examples (a subclass, a future, a blocking wait), each taken from
 * README.md itself (the first {@code java} block after its marker comment: {@value #MARKER},
 * {@value #FUTURE_MARKER}, {@value #AWAIT_MARKER}), compiled as the file it claims to be and run:
 * the README and the code cannot drift apart. The timer's own example ({@value #TIMER_MARKER}) too.
 */
class EmbeddingExampleTest {

    static final String MARKER = "<!-- embedding-example:";
    static final String FUTURE_MARKER = "<!-- embedding-example-future:";
    static final String AWAIT_MARKER = "<!-- embedding-example-await:";
    static final String TIMER_MARKER = "<!-- timer-example:";

    private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)\\n```", Pattern.DOTALL);
    private static final Pattern PUBLIC_CLASS = Pattern.compile("^public (?:final )?class (\\w+)", Pattern.MULTILINE);

    @Test
    void theReadmeExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("keys: NONE, positions: NONE, deleted: UNKNOWN_TOPIC_OR_PARTITION" + System.lineSeparator(),
                compileAndRun(dir, MARKER));
    }

    @Test
    void theReadmeFutureExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("produce: NONE, abandoned: true, all: REACHED, waiting: 0" + System.lineSeparator(),
                compileAndRun(dir, FUTURE_MARKER));
    }

    @Test
    void theReadmeAwaitExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("await: REACHED, then: TIMED_OUT" + System.lineSeparator(), compileAndRun(dir, AWAIT_MARKER));
    }

    @Test
    void theReadmeTimerExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("timeout done: true, never cancelled: true, heartbeat cancelled: true" + System.lineSeparator(),
                compileAndRun(dir, TIMER_MARKER));
    }

    /** Compiles the block after marker as the file it claims to be, runs its main and returns what it printed. */
    private static String compileAndRun(Path dir, String marker) throws Exception {
        // surefire runs in the module's directory; the README is the repository's
        String source = exampleSource(Files.readString(Path.of("..", "README.md")), marker);
        Matcher publicClass = PUBLIC_CLASS.matcher(source);
        assertTrue(publicClass.find(), "the example declares a public class");
        String className = publicClass.group(1);

        Path file = dir.resolve(className + ".java");
        Files.writeString(file, source);
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int status = javac.run(null, diagnostics, diagnostics, "-Xlint:all", "-Werror",
                "-classpath", codeSource(DelayedOperationPurgatory.class).toString(), "-d", dir.toString(), file.toString());
        assertEquals(0, status, () -> "the README's example " + className + " does not compile:\n" + diagnostics.toString(StandardCharsets.UTF_8));
        return runMain(dir, className);
    }

    /** The first {@code java} block after the marker. */
    static String exampleSource(String readme, String marker) {
        int at = readme.indexOf(marker);
        assertTrue(at >= 0, "README.md has the marker " + marker);
        Matcher block = BLOCK.matcher(readme);
        assertTrue(block.find(at), "a java block follows the marker");
        return block.group(1) + "\n";
    }

    /** Runs {@code className.main} from the compiled classes, over this test's classpath, and returns what it printed. */
    private static String runMain(Path classes, String className) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                EmbeddingExampleTest.class.getClassLoader())) {
            Method main = loader.loadClass(className).getMethod("main", String[].class);
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(stdout);
        }
        return printed.toString(StandardCharsets.UTF_8);
    }

    private static Path codeSource(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
