package io.purgatory.demo.broker.coordinator;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/**
 * One member of a classic group, as Kafka's {@code MemberMetadata}: its ids, timeouts, the
 * protocols it offered with their metadata, its assignment, and the JoinGroup or SyncGroup
 * answer it is waiting for, if any.
 *
 * <p>Not thread-safe: every field is guarded by the monitor of the {@link GroupMetadata} it belongs
 * to, which the coordinator holds around every call. No {@code @GuardedBy}: Error Prone cannot name
 * a lock that is another object's monitor held by the caller.
 */
final class MemberMetadata {
    /**
     * A member's protocol: its name and metadata bytes (for a consumer, the serialized subscription),
     * as the JoinGroup request carried them. A class rather than a record because the bytes are
     * compared by content ({@link #matches}), not by the identity a record's {@code equals} would use.
     */
    static final class Protocol {
        private final String name;
        private final byte[] metadata;

        Protocol(String name, byte[] metadata) {
            this.name = name;
            this.metadata = metadata;
        }

        String name() {
            return name;
        }

        byte[] metadata() {
            return metadata;
        }
    }

    private final String memberId;
    private final String groupInstanceId;
    private final String clientId;
    private final String clientHost;
    private final String protocolType;
    private int rebalanceTimeoutMs;
    private int sessionTimeoutMs;
    private Map<String, byte[]> protocols;
    private byte[] assignment = new byte[0];
    private Consumer<JoinGroupResponseData> awaitingJoin;
    private Consumer<SyncGroupResponseData> awaitingSync;
    /** True from the member's first join until its first JoinGroup answer. */
    private boolean isNew;
    /** The member's current {@link DelayedHeartbeat}; an older one that expires is ignored. */
    private DelayedHeartbeat heartbeat;
    /** When the coordinator last heard from the member (join, sync or heartbeat), on the coordinator's clock. */
    private long lastHeartbeatMs;

    MemberMetadata(String memberId, String groupInstanceId, String clientId, String clientHost, int rebalanceTimeoutMs,
                   int sessionTimeoutMs, String protocolType, List<Protocol> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = toMap(protocols);
    }

    /** A static member's new incarnation: the same instance, a new member id, the old assignment. */
    MemberMetadata replacedBy(String newMemberId) {
        MemberMetadata replacement = new MemberMetadata(newMemberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, List.of());
        replacement.protocols = protocols;
        replacement.assignment = assignment;
        return replacement;
    }

    private static Map<String, byte[]> toMap(List<Protocol> protocols) {
        Map<String, byte[]> map = new LinkedHashMap<>();
        protocols.forEach(p -> map.putIfAbsent(p.name(), p.metadata()));
        return map;
    }

    String memberId() {
        return memberId;
    }

    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    String protocolType() {
        return protocolType;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    Set<String> protocolNames() {
        return protocols.keySet();
    }

    /** The metadata the member gave for {@code protocol}; empty if it did not offer it. */
    byte[] metadata(String protocol) {
        return protocols.getOrDefault(protocol, new byte[0]);
    }

    /** Whether {@code offered} is what the member offered before, names, order and bytes. */
    boolean matches(List<Protocol> offered) {
        if (offered.size() != protocols.size()) {
            return false;
        }
        int i = 0;
        for (Map.Entry<String, byte[]> entry : protocols.entrySet()) {
            Protocol p = offered.get(i++);
            if (!p.name().equals(entry.getKey()) || !Arrays.equals(p.metadata(), entry.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** The member's first choice among {@code candidates} (every member supports them all). */
    String vote(Set<String> candidates) {
        for (String name : protocols.keySet()) {
            if (candidates.contains(name)) {
                return name;
            }
        }
        throw new IllegalStateException("member " + memberId + " supports none of " + candidates);
    }

    void update(List<Protocol> offered, int newRebalanceTimeoutMs, int newSessionTimeoutMs) {
        this.protocols = toMap(offered);
        this.rebalanceTimeoutMs = newRebalanceTimeoutMs;
        this.sessionTimeoutMs = newSessionTimeoutMs;
    }

    byte[] assignment() {
        return assignment;
    }

    void assignment(byte[] newAssignment) {
        this.assignment = newAssignment;
    }

    boolean isAwaitingJoin() {
        return awaitingJoin != null;
    }

    boolean isAwaitingSync() {
        return awaitingSync != null;
    }

    void awaitJoin(Consumer<JoinGroupResponseData> callback) {
        this.awaitingJoin = callback;
    }

    void awaitSync(Consumer<SyncGroupResponseData> callback) {
        this.awaitingSync = callback;
    }

    /** Answers the parked JoinGroup, if any; true if there was one. */
    boolean completeJoin(JoinGroupResponseData response) {
        Consumer<JoinGroupResponseData> callback = awaitingJoin;
        if (callback == null) {
            return false;
        }
        awaitingJoin = null;
        isNew = false;
        callback.accept(response);
        return true;
    }

    /** Answers the parked SyncGroup, if any; true if there was one. */
    boolean completeSync(SyncGroupResponseData response) {
        Consumer<SyncGroupResponseData> callback = awaitingSync;
        if (callback == null) {
            return false;
        }
        awaitingSync = null;
        callback.accept(response);
        return true;
    }

    boolean isNew() {
        return isNew;
    }

    void markNew() {
        this.isNew = true;
    }

    DelayedHeartbeat heartbeat() {
        return heartbeat;
    }

    void heartbeat(DelayedHeartbeat current, long nowMs) {
        this.heartbeat = current;
        this.lastHeartbeatMs = nowMs;
    }

    long lastHeartbeatMs() {
        return lastHeartbeatMs;
    }
}
