package io.purgatory.demo.client;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.LoggerFactory;

/**
 * {@code --group NAME --consumers N}: N members of a consumer group read the topic, each a real
 * {@link KafkaConsumer} that {@code subscribe()}s on its own thread and commits after each poll.
 * It prints each member's assignment whenever a rebalance changes it, a line a second with the
 * records each member has read since the start (a running total per member, not per partition), and
 * a summary. With {@code --crash-after-ms}, one more member speaks the classic group protocol itself
 * (join, sync, heartbeats) and, that long after its first assignment, stops heartbeating without
 * leaving, its connection open: a crash. The time counts from its assignment, not from the start: a
 * broker's initial rebalance delay (3 s by default) and the rebalance its join causes come first. The broker's DelayedHeartbeat then
 * expires it after its session timeout ({@value #CRASH_SESSION_TIMEOUT_MS} ms) and the others take
 * its partitions. It joins once every consumer has an assignment, so that a consumer stays the
 * group's leader (the leader assigns; this member would not).
 *
 * <p>Thread-safe: each consumer is confined to its thread; what they report is in atomics and
 * concurrent sets; the printer is the calling thread, which also drives the crashing member.
 */
final class GroupConsume {
    /** The crashing member's session timeout: a short one the broker accepts by default (its minimum is 6000). */
    static final int CRASH_SESSION_TIMEOUT_MS = 10_000;
    private static final long HEARTBEAT_MS = 1_000;

    /** One member's reports. */
    private static final class Member {
        final String name;
        private final AtomicLong records = new AtomicLong();
        private final AtomicInteger rebalances = new AtomicInteger();
        private final CopyOnWriteArraySet<TopicPartition> assignment = new CopyOnWriteArraySet<>();

        Member(String name) {
            this.name = name;
        }

        String assignmentText() {
            TreeSet<String> names = new TreeSet<>();
            assignment.forEach(tp -> names.add(tp.toString()));
            return names.isEmpty() ? "nothing" : String.join(", ", names);
        }
    }

    private GroupConsume() {
    }

    /**
     * Runs the group for {@code durationMs} and prints as it goes.
     *
     * @return 0 when every member ran to the end without an error, 1 otherwise
     */
    static int run(ClientOptions options, String group, int consumers, long durationMs, long crashAfterMs, PrintWriter out)
            throws InterruptedException, ClientException {
        // slf4j initialises here, once, before the consumers' threads log at the same moment: initialised by
        // them, it would queue their first calls and print a three-line "being replayed" warning
        LoggerFactory.getILoggerFactory();
        List<Member> members = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMs);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int i = 1; i <= consumers; i++) {
            Member member = new Member("c" + i);
            members.add(member);
            Thread thread = new Thread(() -> consume(options, group, member, deadline, out, failures), "group-member-" + member.name);
            threads.add(thread);
            thread.start();
        }
        out.printf(Locale.ROOT, "group %s: %d consumer(s) subscribe to %s%s%n", group, consumers, options.topic(),
                crashAfterMs > 0 ? String.format(Locale.ROOT,
                        ", and a member that crashes %d ms after its first assignment (session timeout %d ms)",
                        crashAfterMs, CRASH_SESSION_TIMEOUT_MS) : "");
        out.println("each second: each consumer's partitions, and the records it has read since the start");
        out.flush();
        EventLoopGroup loop = crashAfterMs > 0 ? new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()) : null;
        try (Crashing crashing = crashAfterMs > 0 ? new Crashing(KafkaConnection.open(loop, options.bootstrap(), options.connectTimeoutMs(),
                "demo-client-crashing"), group, options.topic()) : null) {
            long start = System.nanoTime();
            long nextLine = 1_000;
            long nextHeartbeat = 0;
            while (System.nanoTime() < deadline) {
                long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (crashing != null && !crashing.crashed && crashing.firstAssignedMs >= 0
                        && elapsedMs >= crashing.firstAssignedMs + crashAfterMs) {
                    crashing.crashed = true;
                    out.printf(Locale.ROOT, "%6.1fs  crash: stops heartbeating, connection left open, holding %s%n", elapsedMs / 1000.0,
                            crashing.assignment);
                } else if (crashing != null && !crashing.crashed && elapsedMs >= nextHeartbeat
                        && members.stream().allMatch(m -> m.rebalances.get() > 0)) {
                    // it joins once the consumers have theirs, so that a consumer stays leader and assigns (it assigns nothing)
                    crashing.heartbeatOrRejoin(out, start);
                    nextHeartbeat = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + HEARTBEAT_MS; // a join may have taken seconds
                }
                if (elapsedMs >= nextLine) {
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%6.1fs ", elapsedMs / 1000.0));
                    members.forEach(m -> line.append(String.format(Locale.ROOT, " %s: %s (%d read so far)", m.name, m.assignmentText(),
                            m.records.get())));
                    out.println(line);
                    out.flush();
                    nextLine = (elapsedMs / 1_000 + 1) * 1_000; // after a long join, no burst of catch-up lines
                }
                Thread.sleep(50); // the printer's pace; the members run on their own threads
            }
        } finally {
            for (Thread thread : threads) {
                thread.join();
            }
            if (loop != null) {
                loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            }
        }
        out.println("summary:");
        members.forEach(m -> out.printf(Locale.ROOT, "  %s: %d records in %d assignment(s)%n", m.name, m.records.get(), m.rebalances.get()));
        failures.forEach(f -> out.println("  error: " + f));
        out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    private static void consume(ClientOptions options, String group, Member member, long deadline, PrintWriter out, List<Throwable> failures) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap().toString());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, member.name);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(options.topic()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    member.assignment.removeAll(partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    member.assignment.addAll(partitions);
                    member.rebalances.incrementAndGet();
                    synchronized (out) {
                        out.printf(Locale.ROOT, "%s assigned %s%n", member.name, member.assignmentText());
                        out.flush();
                    }
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    member.assignment.removeAll(partitions);
                }
            });
            while (System.nanoTime() < deadline) {
                member.records.addAndGet(consumer.poll(Duration.ofMillis(200)).count());
                consumer.commitSync();
            }
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    /**
     * The crashing member: the classic protocol by hand on one connection, a consumer subscription
     * to the topic, heartbeats from the printer thread until it crashes. Not thread-safe: the
     * printer thread's.
     */
    private static final class Crashing implements AutoCloseable {
        private final KafkaConnection connection;
        private final String group;
        private final String topic;
        private String memberId = JoinGroupRequest.UNKNOWN_MEMBER_ID;
        private int generation = -1;
        private String assignment = "nothing";
        /** When its first assignment came, in ms from the start; -1 until then. Its crash counts from there. */
        private long firstAssignedMs = -1;
        private boolean crashed;

        Crashing(KafkaConnection connection, String group, String topic) {
            this.connection = connection;
            this.group = group;
            this.topic = topic;
        }

        /** A heartbeat; when the group rebalances (or before the first join), a join and a sync. */
        void heartbeatOrRejoin(PrintWriter out, long startNanos) throws ClientException, InterruptedException {
            Errors error = generation < 0 ? Errors.UNKNOWN_MEMBER_ID : Errors.forCode(((HeartbeatResponse) await(connection.send(
                    new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId(group).setMemberId(memberId).setGenerationId(generation))
                            .build(), true))).data().errorCode());
            if (error == Errors.NONE) {
                return;
            }
            if (error != Errors.REBALANCE_IN_PROGRESS) {
                memberId = JoinGroupRequest.UNKNOWN_MEMBER_ID;
            }
            JoinGroupResponseData joined = join();
            if (joined.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                memberId = joined.memberId();
                joined = join();
            }
            if (joined.errorCode() != Errors.NONE.code()) {
                return; // tried again at the next heartbeat
            }
            memberId = joined.memberId();
            generation = joined.generationId();
            SyncGroupResponseData synced = ((SyncGroupResponse) await(connection.send(new SyncGroupRequest.Builder(new SyncGroupRequestData()
                    .setGroupId(group).setMemberId(memberId).setGenerationId(generation).setProtocolType(ConsumerProtocol.PROTOCOL_TYPE)
                    .setProtocolName(joined.protocolName())).build(), true))).data();
            if (synced.errorCode() == Errors.NONE.code()) {
                TreeSet<String> names = new TreeSet<>();
                if (synced.assignment().length > 0) { // none when the leader left this member out of its assignment
                    ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(synced.assignment())).partitions()
                            .forEach(tp -> names.add(tp.toString()));
                }
                assignment = names.isEmpty() ? "nothing" : String.join(", ", names);
                long assignedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos); // after the join, which waits for the rebalance
                if (firstAssignedMs < 0) {
                    firstAssignedMs = assignedMs;
                }
                out.printf(Locale.ROOT, "%6.1fs  crashing member (own protocol code) assigned %s%n", assignedMs / 1000.0, assignment);
            }
        }

        private JoinGroupResponseData join() throws ClientException, InterruptedException {
            ByteBuffer subscription = ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(List.of(topic)));
            byte[] metadata = new byte[subscription.remaining()];
            subscription.get(metadata);
            JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
            protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
            JoinGroupRequestData data = new JoinGroupRequestData().setGroupId(group).setMemberId(memberId)
                    .setSessionTimeoutMs(CRASH_SESSION_TIMEOUT_MS).setRebalanceTimeoutMs(CRASH_SESSION_TIMEOUT_MS)
                    .setProtocolType(ConsumerProtocol.PROTOCOL_TYPE).setProtocols(protocols);
            return ((JoinGroupResponse) await(connection.send(new JoinGroupRequest.Builder(data).build(), true))).data();
        }

        private static Object await(CompletableFuture<?> response) throws ClientException, InterruptedException {
            try {
                return response.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new ClientException("the crashing member's request failed: " + e, e);
            }
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
