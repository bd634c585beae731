package io.purgatory.demo.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
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

/**
 * A group member speaking the classic protocol by hand over a {@link WireClient}, for what a real
 * consumer never does: stop heartbeating while its connection stays, never send SyncGroup, send
 * garbage. It offers the "range" protocol with a consumer subscription, so real consumers in the
 * same group can assign to it. Not thread-safe: one thread at a time (the test's, or one it hands the
 * member to for heartbeats once it has joined and synced).
 */
public final class RawMember {
    private final WireClient client;
    private final String group;
    private final int sessionTimeoutMs;
    private final int rebalanceTimeoutMs;
    private String memberId = JoinGroupRequest.UNKNOWN_MEMBER_ID;
    private int generation = -1;

    public RawMember(WireClient client, String group, int sessionTimeoutMs, int rebalanceTimeoutMs) {
        this.client = client;
        this.group = group;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    }

    static byte[] subscription(String topic) {
        ByteBuffer buffer = ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(List.of(topic)));
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** Sends a JoinGroup with this metadata; the future completes with its answer (which may wait for a rebalance). */
    CompletableFuture<JoinGroupResponseData> sendJoin(byte[] metadata) throws Exception {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId(group).setMemberId(memberId).setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(rebalanceTimeoutMs).setProtocolType("consumer").setProtocols(protocols);
        return client.send(new JoinGroupRequest.Builder(data).build()).thenApply(a -> {
            JoinGroupResponseData response = ((JoinGroupResponse) a.response()).data();
            if (response.errorCode() == Errors.NONE.code() || response.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                memberId = response.memberId();
                generation = response.generationId();
            }
            return response;
        });
    }

    /** Joins as a consumer of {@code topic}: the MEMBER_ID_REQUIRED round, then the parked join; its answer. */
    public JoinGroupResponseData join(String topic) throws Exception {
        JoinGroupResponseData first = sendJoin(subscription(topic)).get(20, TimeUnit.SECONDS);
        if (first.errorCode() != Errors.MEMBER_ID_REQUIRED.code()) {
            return first;
        }
        return sendJoin(subscription(topic)).get(60, TimeUnit.SECONDS);
    }

    /** A SyncGroup with no assignments (a follower's). */
    public SyncGroupResponseData sync() throws Exception {
        SyncGroupRequestData data = new SyncGroupRequestData().setGroupId(group).setMemberId(memberId).setGenerationId(generation)
                .setProtocolType("consumer").setProtocolName("range");
        return ((SyncGroupResponse) client.send(new SyncGroupRequest.Builder(data).build()).get(60, TimeUnit.SECONDS).response()).data();
    }

    /** A Heartbeat at the member's generation; the future completes with its error code. */
    public CompletableFuture<Short> heartbeat() throws IOException {
        HeartbeatRequestData data = new HeartbeatRequestData().setGroupId(group).setMemberId(memberId).setGenerationId(generation);
        return client.send(new HeartbeatRequest.Builder(data).build()).thenApply(a -> ((HeartbeatResponse) a.response()).data().errorCode());
    }

    /**
     * Heartbeats every {@code periodMs} on a thread of its own until the returned handle is closed, after which
     * the member is silent again. For a member that must stay in its group until the test has seen it there, on a
     * machine loaded enough to outlast its session otherwise. Each heartbeat's answer is not looked at.
     */
    public Heartbeats heartbeatEvery(long periodMs) {
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
        thread.scheduleAtFixedRate(() -> {
            try {
                heartbeat();
            } catch (IOException e) {
                throw new UncheckedIOException("heartbeat of " + memberId, e);
            }
        }, 0, periodMs, TimeUnit.MILLISECONDS);
        return new Heartbeats(thread);
    }

    /** The heartbeats {@link #heartbeatEvery} sends; closing stops them, and returns once none is being sent. */
    public static final class Heartbeats implements AutoCloseable {
        private final ScheduledExecutorService thread;

        private Heartbeats(ScheduledExecutorService thread) {
            this.thread = thread;
        }

        @Override
        public void close() throws InterruptedException {
            thread.shutdownNow();
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the heartbeats did not stop");
            }
        }
    }

    public String memberId() {
        return memberId;
    }

    int generation() {
        return generation;
    }
}
