package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The code blocks that README.md and docs/guide.md say a test runs: each is the first {@code java}
 * block after its marker comment ({@code <!-- run by EmbeddingExampleTest: id -->}), compiled as the
 * file it claims to be and run, so that the docs and the code cannot drift apart: the README's quick
 * start, the guide's three embedding examples (a subclass, a future, a blocking wait), the timer's
 * example, and the tutorial's test on a MockTimer, compiled against JUnit and Awaitility and each of
 * its {@code @Test} methods run on a new instance, as JUnit would. The docs check
 * ({@code DocsCheckTest}) holds every other block of those two files to a "not run" marker.
 */
class EmbeddingExampleTest {

    static final Doc README = new Doc("README.md", "readme-example");
    static final Doc MARKER = new Doc("docs/guide.md", "embedding-example");
    static final Doc FUTURE_MARKER = new Doc("docs/guide.md", "embedding-example-future");
    static final Doc AWAIT_MARKER = new Doc("docs/guide.md", "embedding-example-await");
    static final Doc TIMER_MARKER = new Doc("docs/guide.md", "timer-example");
    static final Doc TEST_MARKER = new Doc("docs/guide.md", "long-poll-test");

    /** A block in a file of the repository: the first java block after {@code <!-- run by EmbeddingExampleTest: id -->}. */
    record Doc(String file, String id) {
        String marker() {
            return "<!-- run by EmbeddingExampleTest: " + id + " -->";
        }
    }

    private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)\\n```", Pattern.DOTALL);
    private static final Pattern PUBLIC_CLASS = Pattern.compile("^public (?:final )?class (\\w+)", Pattern.MULTILINE);

    @Test
    void theReadmeQuickStartCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("REACHED" + System.lineSeparator(), compileAndRun(dir, README));
    }

    @Test
    void theGuideExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("keys: NONE, positions: NONE, deleted: UNKNOWN_TOPIC_OR_PARTITION" + System.lineSeparator(),
                compileAndRun(dir, MARKER));
    }

    @Test
    void theGuideFutureExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("produce: NONE, abandoned: true, all: REACHED, waiting: 0" + System.lineSeparator(),
                compileAndRun(dir, FUTURE_MARKER));
    }

    @Test
    void theGuideAwaitExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("await: REACHED, then: TIMED_OUT" + System.lineSeparator(), compileAndRun(dir, AWAIT_MARKER));
    }

    @Test
    void theGuideTimerExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        assertEquals("timeout done: true, never cancelled: true, heartbeat cancelled: true" + System.lineSeparator(),
                compileAndRun(dir, TIMER_MARKER));
    }

    @Test
    void theGuideTestOnAMockTimerCompilesAndPasses(@TempDir Path dir) throws Exception {
        // -classfile: MockTimer's @GuardedBy (error_prone_annotations, a provided dependency, not on a user's class path)
        // makes javac -Xlint warn "Cannot find annotation method 'value()'"; without -Xlint javac says nothing
        String className = compile(dir, TEST_MARKER, "-Xlint:all,-classfile", codeSource(DelayedOperationPurgatory.class), codeSource(Test.class),
                codeSource(Assertions.class), codeSource(Awaitility.class), codeSource(org.hamcrest.Matcher.class),
                codeSource(org.apiguardian.api.API.class), codeSource(org.opentest4j.AssertionFailedError.class));
        List<String> ran = new ArrayList<>();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, EmbeddingExampleTest.class.getClassLoader())) {
            Class<?> testClass = loader.loadClass(className);
            for (Method method : testClass.getMethods()) {
                if (method.isAnnotationPresent(Test.class)) {
                    try {
                        method.invoke(testClass.getConstructor().newInstance());
                    } catch (InvocationTargetException e) {
                        throw new AssertionError("the docs' " + className + "." + method.getName() + " fails", e.getCause());
                    }
                    ran.add(method.getName());
                }
            }
        }
        assertEquals(List.of("aPollIsAnsweredByAnAdvanceOnAnotherThread", "aPollTimesOutAtItsDeadlineAndNotBefore"),
                ran.stream().sorted().toList());
    }

    /** Compiles the block after marker as the file it claims to be, runs its main and returns what it printed. */
    private static String compileAndRun(Path dir, Doc marker) throws Exception {
        return runMain(dir, compile(dir, marker, "-Xlint:all", codeSource(DelayedOperationPurgatory.class)));
    }

    /** Compiles the block after marker as the file it claims to be, against classpath, into dir; returns its class's name. */
    private static String compile(Path dir, Doc marker, String lint, Path... classpath) throws Exception {
        // surefire runs in the module's directory; the docs are the repository's
        String source = exampleSource(Files.readString(Path.of("..").resolve(marker.file())), marker);
        Matcher publicClass = PUBLIC_CLASS.matcher(source);
        assertTrue(publicClass.find(), "the example declares a public class");
        String className = publicClass.group(1);

        Path file = dir.resolve(className + ".java");
        Files.writeString(file, source);
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String path = Arrays.stream(classpath).map(Path::toString).collect(Collectors.joining(File.pathSeparator));
        int status = javac.run(null, diagnostics, diagnostics, lint, "-Werror",
                "-classpath", path, "-d", dir.toString(), file.toString());
        assertEquals(0, status, () -> marker.file() + "'s example " + className + " does not compile:\n" + diagnostics.toString(StandardCharsets.UTF_8));
        return className;
    }

    /** The first {@code java} block after the marker. */
    static String exampleSource(String markdown, Doc marker) {
        int at = markdown.indexOf(marker.marker());
        assertTrue(at >= 0, marker.file() + " has the marker " + marker.marker());
        Matcher block = BLOCK.matcher(markdown);
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
