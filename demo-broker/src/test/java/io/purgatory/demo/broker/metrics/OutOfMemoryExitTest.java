package io.purgatory.demo.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An OutOfMemoryError ends the process with one line and status 3; nothing else does. */
class OutOfMemoryExitTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<Integer> halts = new ArrayList<>();
    private final OutOfMemoryExit exit = new OutOfMemoryExit(new PrintStream(err, true, StandardCharsets.UTF_8), halts::add);

    @Test
    void anOutOfMemoryErrorHaltsWithStatusThreeAndOneLine() {
        exit.onError(new OutOfMemoryError("Java heap space"));

        assertEquals(List.of(3), halts);
        String line = err.toString(StandardCharsets.UTF_8);
        assertTrue(line.startsWith("demo-broker: out of memory (Java heap space) in thread "), line);
        assertEquals(1, line.lines().count(), line);
    }

    @Test
    void anOutOfMemoryErrorWrappedAsACauseHaltsToo() {
        exit.onError(new IllegalStateException("decoding failed", new OutOfMemoryError("Direct buffer memory")));

        assertEquals(List.of(3), halts);
    }

    @Test
    void otherErrorsAndExceptionsDoNotHalt() {
        exit.onError(new StackOverflowError());
        exit.onError(new IllegalArgumentException("bad frame"));

        assertEquals(List.of(), halts);
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    /** A real process: a thread dies of an OutOfMemoryError while main waits for ever; the process exits 3 at once. */
    @Test
    void aProcessWhoseThreadRunsOutOfMemoryExitsAtOnce(@TempDir Path dir) throws Exception {
        Path stderr = dir.resolve("stderr");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), RunsOutOfMemory.class.getName())
                .redirectError(stderr.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the process exited");
            assertEquals(OutOfMemoryExit.STATUS, child.exitValue());
            String lines = Files.readString(stderr);
            assertTrue(lines.startsWith("demo-broker: out of memory (Requested array size exceeds VM limit) in thread allocating;"), lines);
        } finally {
            child.destroyForcibly();
        }
    }

    /** The child process: the broker's default handler, a thread that asks for an array larger than any heap, and a main that never ends. */
    public static final class RunsOutOfMemory {
        public static void main(String[] args) throws InterruptedException {
            OutOfMemoryExit.installAsDefaultHandler();
            Thread allocating = new Thread(() -> System.out.println(new long[Integer.MAX_VALUE].length), "allocating");
            allocating.start();
            Thread.currentThread().join();
        }
    }
}
