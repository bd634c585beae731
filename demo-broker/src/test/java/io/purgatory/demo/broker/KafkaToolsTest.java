package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.ConsumerPerformance;
import org.apache.kafka.tools.EndToEndLatency;
import org.apache.kafka.tools.consumer.ConsoleConsumer;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka's own tools from kafka-tools 4.4.0, run in this JVM against the demo broker as a user
 * would run them from a shell: {@code kafka-console-consumer}, {@code kafka-consumer-groups},
 * {@code kafka-consumer-perf-test} and the end-to-end latency tool. Their {@code Exit.exit} calls
 * are caught (Kafka's {@link Exit} hook), and their output is captured.
 */
@Tag("integration")
class KafkaToolsTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic("demo", 3).topic("latency", 1).groupInitialRebalanceDelayMs(100));

    private DemoBroker broker;
    private KafkaProducer<String, String> producer;
    private int produced;

    /** What a tool printed, and the code it exited with (0 when it returned). */
    private record Run(int exitCode, String out, String err) {
        /** The lines the tool printed; the broker's log lines, which go to the same System.out in this JVM, left out. */
        List<String> lines() {
            return out.lines().filter(l -> !l.isBlank() && !LOG_LINE.matcher(l).lookingAt()).toList();
        }

        /** The records a console consumer printed (values "v{n}"), without its notices. */
        List<String> records() {
            return lines().stream().filter(l -> l.matches("v\\d+")).toList();
        }
    }

    private static final Pattern LOG_LINE = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ");

    /** Thrown by the exit hook so that a tool's {@code Exit.exit} ends the tool, not the JVM. */
    private static final class ExitCalled extends RuntimeException {
        final int code;

        ExitCalled(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    @BeforeEach
    void start() throws Exception {
        broker = brokers.get();
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all"));
        Exit.setExitProcedure((code, message) -> {
            throw new ExitCalled(code);
        });
        Exit.setShutdownHookAdder((name, hook) -> { }); // the console consumer's hook would outlive the test
    }

    @AfterEach
    void stop() {
        Exit.resetExitProcedure();
        Exit.resetShutdownHookAdder();
        producer.close();
    }

    private String bootstrap() {
        return "localhost:" + broker.port();
    }

    /** Produces records "v{n}" round-robin over demo's partitions; returns their values. */
    private Set<String> produce(int count) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        Set<String> values = new HashSet<>();
        for (int i = 0; i < count; i++) {
            String value = "v" + produced;
            acks.add(producer.send(new ProducerRecord<>("demo", produced % 3, null, value)));
            values.add(value);
            produced++;
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(20, TimeUnit.SECONDS);
        }
        return values;
    }

    /** Runs a tool's main with System.out and System.err captured. */
    private static synchronized Run run(ToolMain tool, String... args) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code = 0;
        try (PrintStream capturedOut = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
             PrintStream capturedErr = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            System.setOut(capturedOut);
            System.setErr(capturedErr);
            tool.main(args);
        } catch (ExitCalled exit) {
            code = exit.code;
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        Run run = new Run(code, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
        out.println("$ " + String.join(" ", args) + "\n" + run.out() + run.err() + "(exit " + code + ")");
        return run;
    }

    @FunctionalInterface
    private interface ToolMain {
        void main(String[] args) throws Exception;
    }

    private Run consoleConsumer(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", bootstrap(), "--topic", "demo", "--timeout-ms", "20000"));
        args.addAll(Arrays.asList(extra));
        return run(ConsoleConsumer::main, args.toArray(String[]::new));
    }

    private Run consumerGroups(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap()));
        all.addAll(Arrays.asList(args));
        return run(ConsumerGroupCommand::main, all.toArray(String[]::new));
    }

    @Test
    void theConsoleConsumerWithItsDefaultGroupReadsEveryRecord() throws Exception {
        Set<String> values = produce(30);
        Run run = consoleConsumer("--from-beginning", "--max-messages", "30");
        assertEquals(values, Set.copyOf(run.records()));
        assertTrue(run.err().contains("Processed a total of 30 messages"), run.err());
    }

    @Test
    void theConsoleConsumerInAGroupResumesWhereItStopped() throws Exception {
        Set<String> values = produce(20);
        // one record per poll, so that the position it commits on close is what it printed
        Run first = consoleConsumer("--group", "g", "--from-beginning", "--max-messages", "12", "--command-property", "max.poll.records=1");
        Run second = consoleConsumer("--group", "g", "--max-messages", "8", "--command-property", "max.poll.records=1");
        Set<String> read = new HashSet<>(first.records());
        read.addAll(second.records());
        assertEquals(12, first.records().size());
        assertEquals(8, second.records().size());
        assertEquals(values, read, "nothing read twice, nothing missed");
    }

    @Test
    void kafkaConsumerGroupsListsDescribesResetsAndDeletes() throws Exception {
        produce(12);
        consoleConsumer("--group", "g", "--from-beginning", "--max-messages", "12", "--command-property", "max.poll.records=1");
        produce(6); // two more on each partition: a lag of 2 each

        assertTrue(consumerGroups("--list").lines().contains("g"));

        Run describe = consumerGroups("--describe", "--group", "g");
        assertEquals(0, describe.exitCode(), describe.err());
        Map<Integer, List<String>> rows = partitionRows(describe);
        assertEquals(Set.of(0, 1, 2), rows.keySet(), describe.out());
        for (List<String> row : rows.values()) { // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
            assertEquals(List.of("4", "6", "2"), row.subList(3, 6), describe.out());
        }

        Run reset = consumerGroups("--reset-offsets", "--group", "g", "--topic", "demo", "--to-earliest", "--execute");
        assertEquals(0, reset.exitCode(), reset.err());
        for (List<String> row : partitionRows(consumerGroups("--describe", "--group", "g")).values()) {
            assertEquals(List.of("0", "6", "6"), row.subList(3, 6));
        }
        assertEquals(18, consoleConsumer("--group", "g", "--max-messages", "18").records().size(), "after the reset it reads everything again");

        Run delete = consumerGroups("--delete", "--group", "g");
        assertTrue(delete.out().contains("successful"), delete.out());
        assertFalse(consumerGroups("--list").lines().contains("g"));
    }

    @Test
    void kafkaConsumerGroupsDescribesActiveMembersAndTheGroupState() throws Exception {
        try (GroupConsumer member = new GroupConsumer("live-1", broker.port(), "live", "demo", new ConcurrentLinkedQueue<>(), Map.of())) {
            Waits.soon().until(() -> member.assignment().size() == 3);
            Map<Integer, List<String>> rows = partitionRows(consumerGroups("--describe", "--group", "live"));
            assertEquals(Set.of(0, 1, 2), rows.keySet());
            for (List<String> row : rows.values()) { // ... LAG CONSUMER-ID HOST CLIENT-ID
                assertTrue(row.get(6).startsWith("live-1-"), row.toString());
                assertEquals("/127.0.0.1", row.get(7));
                assertEquals("live-1", row.get(8));
            }
            Run state = consumerGroups("--describe", "--group", "live", "--state");
            assertTrue(state.lines().stream().anyMatch(l -> l.matches("live\\s+.*range\\s+Stable\\s+1")), state.out());
            Run members = consumerGroups("--describe", "--group", "live", "--members", "--verbose");
            assertTrue(members.lines().stream().anyMatch(l -> l.contains("live-1") && l.contains("demo:0,1,2")), members.out());
        }
    }

    /** The rows of a {@code --describe} table for topic demo, by partition, split into columns. */
    private static Map<Integer, List<String>> partitionRows(Run describe) {
        return describe.lines().stream().map(l -> List.of(l.trim().split("\\s+")))
                .filter(cols -> cols.size() >= 6 && cols.get(1).equals("demo"))
                .collect(Collectors.toMap(cols -> Integer.parseInt(cols.get(2)), cols -> cols));
    }

    @Test
    void theConsumerPerfTestConsumesInAGroup() throws Exception {
        produce(300);
        Run perf = run(ConsumerPerformance::main, "--bootstrap-server", bootstrap(), "--topic", "demo", "--num-records", "300", "--group", "perf",
                "--timeout", "20000");
        assertEquals(0, perf.exitCode(), perf.err());
        List<String> lines = perf.lines();
        int headerLine = IntStream.range(0, lines.size()).filter(i -> lines.get(i).contains("data.consumed.in.nMsg")).findFirst().orElseThrow();
        List<String> header = List.of(lines.get(headerLine).split(",\\s*"));
        List<String> values = List.of(lines.get(headerLine + 1).split(",\\s*"));
        assertEquals("300", values.get(header.indexOf("data.consumed.in.nMsg")), perf.out());
    }

    @Test
    void theEndToEndLatencyToolMeasuresAndFinishes() throws Exception {
        Run latency = run(EndToEndLatency::main, bootstrap(), "latency", "200", "1", "100");
        assertEquals(0, latency.exitCode(), latency.err());
        assertTrue(latency.out().contains("Avg latency:"), latency.out());
    }
}
