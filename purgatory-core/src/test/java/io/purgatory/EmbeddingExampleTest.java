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
 * The README's three embedding examples (a subclass, a future, a blocking wait), each taken from
 * README.md itself (the first {@code java} block after its marker comment: {@value #MARKER},
 * {@value #FUTURE_MARKER}, {@value #AWAIT_MARKER}), compiled as the file it claims to be and run:
 * the README and the code cannot drift apart. The timer's own example ({@value #TIMER_MARKER}) too,
 * and the test a new project writes on a MockTimer ({@value #TEST_MARKER}), compiled against JUnit
 * and Awaitility and each of its {@code @Test} methods run on a new instance, as JUnit would.
 */
class EmbeddingExampleTest {

    static final String MARKER = "<!-- embedding-example:";
    static final String FUTURE_MARKER = "<!-- embedding-example-future:";
    static final String AWAIT_MARKER = "<!-- embedding-example-await:";
    static final String TIMER_MARKER = "<!-- timer-example:";
    static final String TEST_MARKER = "<!-- embedding-example-test:";

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

    @Test
    void theReadmeTestOnAMockTimerCompilesAndPasses(@TempDir Path dir) throws Exception {
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
                        throw new AssertionError("the README's " + className + "." + method.getName() + " fails", e.getCause());
                    }
                    ran.add(method.getName());
                }
            }
        }
        assertEquals(List.of("aPollIsAnsweredByAnAdvanceOnAnotherThread", "aPollTimesOutAtItsDeadlineAndNotBefore"),
                ran.stream().sorted().toList());
    }

    /** Compiles the block after marker as the file it claims to be, runs its main and returns what it printed. */
    private static String compileAndRun(Path dir, String marker) throws Exception {
        return runMain(dir, compile(dir, marker, "-Xlint:all", codeSource(DelayedOperationPurgatory.class)));
    }

    /** Compiles the block after marker as the file it claims to be, against classpath, into dir; returns its class's name. */
    private static String compile(Path dir, String marker, String lint, Path... classpath) throws Exception {
        // surefire runs in the module's directory; the README is the repository's
        String source = exampleSource(Files.readString(Path.of("..", "README.md")), marker);
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
        assertEquals(0, status, () -> "the README's example " + className + " does not compile:\n" + diagnostics.toString(StandardCharsets.UTF_8));
        return className;
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
