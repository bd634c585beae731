package io.purgatory.demo.broker;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.ConfigCommand;
import org.apache.kafka.tools.DeleteRecordsCommand;
import org.apache.kafka.tools.TopicCommand;

/**
 * Kafka's own command-line tools (kafka-tools 4.4.0), run in this JVM as a user runs them:
 * {@code kafka-topics}, {@code kafka-configs} and {@code kafka-delete-records}. Their {@code main}
 * ends with Kafka's {@link Exit#exit}, which would end the JVM; here an exit procedure records the
 * first status instead (and returns, as the tools' own tests do), and what the tool prints is
 * captured.
 *
 * <p>Thread-safe: one run at a time (the tools print to {@link System#out} and exit through a
 * global procedure), serialised on the class.
 */
public final class KafkaTools {
    private KafkaTools() {
    }

    /** Log lines (logback's pattern in this module's tests), the broker's and the tool's, which share the captured streams. */
    private static final Pattern LOG_LINE = Pattern.compile("(?m)^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} [A-Z]+ +\\[.*\\R?");

    /**
     * What a tool run printed, its log lines apart, and its exit code (0 when it returned without
     * calling exit).
     */
    public record Run(int exitCode, String out, String err, String log) {
        /** Everything printed and logged, for the error messages the tools log rather than print. */
        public String all() {
            return out + err + log;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err + "--- log\n" + log;
        }
    }

    /** {@code kafka-topics.sh ARGS}. */
    public static Run topics(String... args) {
        return run(() -> TopicCommand.main(args));
    }

    /** {@code kafka-configs.sh ARGS}. */
    public static Run configs(String... args) {
        return run(() -> ConfigCommand.main(args));
    }

    /** {@code kafka-delete-records.sh ARGS}. */
    public static Run deleteRecords(String... args) {
        return run(() -> DeleteRecordsCommand.main(args));
    }

    /** A tool's main. */
    @FunctionalInterface
    private interface Main {
        void run() throws Exception;
    }

    private static synchronized Run run(Main main) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        AtomicInteger code = new AtomicInteger(-1);
        Exit.setExitProcedure((status, message) -> code.compareAndSet(-1, status));
        try (PrintStream capturedOut = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
             PrintStream capturedErr = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            System.setOut(capturedOut);
            System.setErr(capturedErr);
            main.run();
        } catch (Exception e) {
            throw new AssertionError("the tool threw " + e + "; it printed " + outBytes.toString(StandardCharsets.UTF_8)
                    + errBytes.toString(StandardCharsets.UTF_8), e);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            Exit.resetExitProcedure();
        }
        String out = outBytes.toString(StandardCharsets.UTF_8);
        String err = errBytes.toString(StandardCharsets.UTF_8);
        StringBuilder log = new StringBuilder();
        LOG_LINE.matcher(out + err).results().forEach(line -> log.append(line.group()));
        return new Run(Math.max(0, code.get()), LOG_LINE.matcher(out).replaceAll(""), LOG_LINE.matcher(err).replaceAll(""), log.toString());
    }
}
