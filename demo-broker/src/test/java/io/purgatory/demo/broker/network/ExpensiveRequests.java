package io.purgatory.demo.broker.network;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * {@link HostileBench}'s {@code expensive} mode: a good producer alone, then beside connections that
 * each send, in a loop, one request at a time, a request of a few bytes that is expensive to answer.
 * Connection {@code i} sends, by {@code i % 4}: 0 and 1 Metadata of all topics (v12), 2 ListGroups
 * (v4) then DescribeGroups of every group (v5), 3 OffsetFetch of all of one group's offsets (v7).
 * Prints the producer's percentiles for both phases and how many hostile responses carried a
 * {@code throttle_time_ms}. A benchmark, not a test.
 */
final class ExpensiveRequests {
    private static final int TOPICS = 10;
    private static final int PARTITIONS_PER_TOPIC = 999;
    private static final int GROUPS = 50;

    private ExpensiveRequests() {
    }

    static void run(int port, String topic, int connections, int seconds) throws Exception {
        List<String> groups = prepare(port);
        long[] idle = HostileBench.produce(port, topic, seconds);
        AtomicBoolean attacking = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        AtomicLong throttled = new AtomicLong();
        AtomicLong throttleMs = new AtomicLong();
        List<Thread> attackers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            List<ByteBuffer> frames = frames(i % 4, groups);
            Thread attacker = new Thread(() -> {
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    socket.setTcpNoDelay(true);
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    DataInputStream in = new DataInputStream(socket.getInputStream());
                    for (int k = 0; attacking.get(); k++) {
                        ByteBuffer frame = frames.get(k % frames.size());
                        out.writeInt(frame.remaining());
                        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
                        out.flush();
                        byte[] response = new byte[in.readInt()];
                        in.readFully(response);
                        sent.incrementAndGet();
                        int throttle = ByteBuffer.wrap(response).getInt(5); // flexible header: correlation id, no tags; then throttle_time_ms
                        if (throttle > 0) {
                            throttled.incrementAndGet();
                            throttleMs.addAndGet(throttle);
                        }
                    }
                } catch (IOException e) {
                    System.out.println("hostile connection ended: " + e);
                }
            }, "expensive-" + i);
            attacker.setDaemon(true);
            attacker.start();
            attackers.add(attacker);
        }
        long[] attacked = HostileBench.produce(port, topic, seconds);
        attacking.set(false);
        for (Thread attacker : attackers) {
            attacker.join(10_000);
        }
        System.out.printf("good producer acks=all, alone:           %s%n", HostileBench.percentiles(idle));
        System.out.printf("good producer acks=all, beside %d expensive: %s%n", connections, HostileBench.percentiles(attacked));
        System.out.printf("expensive requests answered meanwhile: %,d, of which %,d throttled (%,d ms of throttle in all)%n",
                sent.get(), throttled.get(), throttleMs.get());
    }

    /** Topics up to about 9,990 partitions, and 50 groups with offsets of 999 partitions each; their names. */
    private static List<String> prepare(int port) throws InterruptedException, ExecutionException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        List<String> groups = new ArrayList<>();
        try (Admin admin = Admin.create(props)) {
            for (int t = 0; t < TOPICS; t++) {
                try {
                    admin.createTopics(List.of(new NewTopic("wide-" + t, Optional.of(PARTITIONS_PER_TOPIC), Optional.empty()))).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                offsets.put(new TopicPartition("wide-0", p), new OffsetAndMetadata(0));
            }
            for (int g = 0; g < GROUPS; g++) {
                String group = "expensive-group-" + g;
                admin.alterConsumerGroupOffsets(group, offsets).all().get();
                groups.add(group);
            }
            System.out.printf("prepared: %d topics, %d groups with offsets%n", admin.listTopics().names().get().size(), groups.size());
        }
        return groups;
    }

    /** The frames connection {@code kind} sends in turn. */
    private static List<ByteBuffer> frames(int kind, List<String> groups) {
        return switch (kind) {
            case 0, 1 -> List.of(frame(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false)));
            case 2 -> List.of(frame(ApiKeys.LIST_GROUPS, (short) 4, new ListGroupsRequestData()),
                    frame(ApiKeys.DESCRIBE_GROUPS, (short) 5, new DescribeGroupsRequestData().setGroups(groups)));
            default -> List.of(frame(ApiKeys.OFFSET_FETCH, (short) 7, new OffsetFetchRequestData().setGroupId(groups.get(0)).setTopics(null)));
        };
    }

    private static ByteBuffer frame(ApiKeys api, short version, ApiMessage data) {
        RequestHeader header = new RequestHeader(api, version, "expensive-bench", 1);
        return RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
    }
}
