package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A member of a consumer group in a JVM of its own, so that a test can end it with SIGKILL as a crashed
 * application ends: no leave-group request, no commit, no close. The member subscribes to one topic and polls
 * until it is killed; it never commits, so the partitions it held are read again from their start by whoever
 * takes them over. A classic member's session times out after {@value #SESSION_TIMEOUT_MS} ms.
 *
 * <p>The member's JVM also ends by itself when its standard input closes, that is when the test JVM that
 * started it is gone, so that no member outlives a test JVM that was ended. Its output goes to a file beside
 * the cluster's nodes.
 *
 * <p>Not thread-safe: one test thread starts and kills it.
 */
final class ForkedMember implements AutoCloseable {

    /** The classic protocol's session timeout the member asks for (the broker's minimum is 6 s). */
    static final int SESSION_TIMEOUT_MS = 10_000;

    private final Process process;
    private final String clientId;

    private ForkedMember(Process process, String clientId) {
        this.process = process;
        this.clientId = clientId;
    }

    /** Starts a member of {@code group} on {@code topic} in a JVM of its own, on this JVM's class path. */
    static ForkedMember start(KafkaCluster cluster, String topic, String group, GroupProtocol protocol) {
        String clientId = group + "-forked";
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                ForkedMember.class.getName(),
                cluster.bootstrapServers(), topic, group, protocol.name(), clientId));
        Path log = cluster.spec().directory().resolve(clientId + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new ForkedMember(process, clientId);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a group member's JVM", e);
        }
    }

    /** The member's {@code client.id}, as the group's description lists it. */
    String clientId() {
        return clientId;
    }

    /** Ends the member's JVM with SIGKILL and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /**
     * The member's JVM: {@code bootstrap-servers topic group protocol client-id}. Polls until it is killed or its
     * standard input closes.
     */
    public static void main(String[] args) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, args[2]);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, args[3]);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, args[4]);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        if (GroupProtocol.valueOf(args[3]) == GroupProtocol.CLASSIC) {
            // the consumer protocol's session timeout is the group's, set on the broker
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
        }
        Thread orphaned = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; end of input means the test JVM is gone
                }
            } catch (IOException e) {
                // the pipe broke: the test JVM is gone too
            }
            Runtime.getRuntime().halt(3);
        }, "exit-with-the-test-jvm");
        orphaned.setDaemon(true);
        orphaned.start();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(args[1]));
            while (true) {
                int count = consumer.poll(Duration.ofMillis(200)).count();
                if (count > 0) {
                    System.out.println("read " + count + " records of " + consumer.assignment());
                }
            }
        }
    }
}
