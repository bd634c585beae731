package io.purgatory.demo.broker.coordinator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;

/**
 * One classic group, as Kafka's {@code GroupMetadata}: its state, generation, protocol, leader,
 * members (static ones also by instance id), members still owed a JoinGroup ({@code pending}, told
 * {@code MEMBER_ID_REQUIRED}) or a SyncGroup, and its committed offsets. The coordinator makes the
 * decisions; this class keeps the bookkeeping consistent (the count of members awaiting a join
 * answer, the protocol votes).
 *
 * <p>Not thread-safe: every field is guarded by this object's monitor, which the coordinator holds
 * around every read and change ({@code synchronized (group)}), and under which delayed operations
 * check their conditions. Lock order: an operation's lock, then this monitor. No {@code @GuardedBy}:
 * the caller takes the monitor around a sequence of calls (in lambdas too), which Error Prone cannot follow.
 */
final class GroupMetadata {
    private final String groupId;
    private GroupState state = GroupState.EMPTY;
    private GroupState previousState = GroupState.EMPTY;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private final Map<String, MemberMetadata> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Set<String> pendingMembers = new LinkedHashSet<>();
    private final Set<String> pendingSyncMembers = new LinkedHashSet<>();
    private final Map<String, Integer> protocolVotes = new HashMap<>();
    private final GroupOffsets offsets;
    private final GroupCreator creator;
    private int expiredMembers; // since the group last had none expire
    private int awaitingJoin;
    private boolean newMemberAdded;
    private long stateSinceMs;

    /** @param creator the client id and address of the request that created the group (the group caps count it) */
    GroupMetadata(String groupId, long nowMs, GroupOffsets offsets, GroupCreator creator) {
        this.groupId = groupId;
        this.stateSinceMs = nowMs;
        this.offsets = offsets;
        this.creator = creator;
    }

    GroupCreator creator() {
        return creator;
    }

    /** Counts a member whose session expired; how many have since the count was last {@link #takeExpiredMembers taken}. */
    int countExpiredMember() {
        return ++expiredMembers;
    }

    /** The members expired since the last call, and starts counting again. */
    int takeExpiredMembers() {
        int taken = expiredMembers;
        expiredMembers = 0;
        return taken;
    }

    String groupId() {
        return groupId;
    }

    GroupState state() {
        return state;
    }

    GroupState previousState() {
        return previousState;
    }

    boolean is(GroupState s) {
        return state == s;
    }

    long stateSinceMs() {
        return stateSinceMs;
    }

    void transitionTo(GroupState next, long nowMs) {
        if (!next.canFollow(state)) {
            throw new IllegalStateException("group " + groupId + " cannot go from " + state + " to " + next);
        }
        previousState = state;
        state = next;
        stateSinceMs = nowMs;
    }

    /** Whether a rebalance may start now (Kafka's {@code canRebalance}). */
    boolean canRebalance() {
        return GroupState.PREPARING_REBALANCE.canFollow(state);
    }

    int generationId() {
        return generationId;
    }

    String protocolType() {
        return protocolType;
    }

    String protocolName() {
        return protocolName;
    }

    String leaderId() {
        return leaderId;
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    boolean newMemberAdded() {
        return newMemberAdded;
    }

    void newMemberAdded(boolean added) {
        this.newMemberAdded = added;
    }

    // ---- members

    boolean has(String memberId) {
        return members.containsKey(memberId);
    }

    MemberMetadata member(String memberId) {
        return members.get(memberId);
    }

    Collection<MemberMetadata> members() {
        return members.values();
    }

    int size() {
        return members.size();
    }

    boolean isPending(String memberId) {
        return pendingMembers.contains(memberId);
    }

    void addPending(String memberId) {
        pendingMembers.add(memberId);
    }

    Set<String> pendingMembers() {
        return pendingMembers;
    }

    int pendingCount() {
        return pendingMembers.size();
    }

    String staticMemberId(String groupInstanceId) {
        return staticMembers.get(groupInstanceId);
    }

    String newMemberId(String clientId, String groupInstanceId) {
        return (groupInstanceId != null ? groupInstanceId : clientId) + "-" + UUID.randomUUID();
    }

    /** Adds a member (no longer pending) that may be waiting for its JoinGroup answer. */
    void add(MemberMetadata member) {
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        if (member.isStatic()) {
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        members.put(member.memberId(), member);
        member.protocolNames().forEach(name -> protocolVotes.merge(name, 1, Integer::sum));
        if (member.isAwaitingJoin()) {
            awaitingJoin++;
        }
        pendingMembers.remove(member.memberId());
    }

    /** Removes a member or a pending member; a new leader is the first member left. */
    void remove(String memberId) {
        MemberMetadata removed = members.remove(memberId);
        if (removed != null) {
            removed.protocolNames().forEach(name -> protocolVotes.merge(name, -1, Integer::sum));
            if (removed.isAwaitingJoin()) {
                awaitingJoin--;
            }
            if (removed.isStatic()) {
                staticMembers.remove(removed.groupInstanceId());
            }
        }
        if (memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
        pendingMembers.remove(memberId);
        pendingSyncMembers.remove(memberId);
        if (members.isEmpty()) {
            protocolType = offsets.isEmpty() ? null : protocolType;
        }
    }

    /** A static member rejoins with a new member id: the old one is gone, the new one inherits its place. */
    MemberMetadata replaceStatic(MemberMetadata old, String newMemberId) {
        MemberMetadata replacement = old.replacedBy(newMemberId);
        members.remove(old.memberId());
        if (old.isAwaitingJoin()) {
            awaitingJoin--;
        }
        pendingSyncMembers.remove(old.memberId());
        members.put(newMemberId, replacement);
        staticMembers.put(old.groupInstanceId(), newMemberId);
        if (old.memberId().equals(leaderId)) {
            leaderId = newMemberId;
        }
        return replacement;
    }

    /** Changes a member's protocols and timeouts, keeping the protocol votes right. */
    void updateMember(MemberMetadata member, List<MemberMetadata.Protocol> offered, int rebalanceTimeoutMs, int sessionTimeoutMs) {
        member.protocolNames().forEach(name -> protocolVotes.merge(name, -1, Integer::sum));
        member.update(offered, rebalanceTimeoutMs, sessionTimeoutMs);
        member.protocolNames().forEach(name -> protocolVotes.merge(name, 1, Integer::sum));
    }

    /** Parks a member's JoinGroup answer. */
    void awaitJoin(MemberMetadata member, Consumer<JoinGroupResponseData> callback) {
        if (!member.isAwaitingJoin()) {
            awaitingJoin++;
        }
        member.awaitJoin(callback);
    }

    /** Answers a member's parked JoinGroup, if any. */
    boolean completeJoin(MemberMetadata member, JoinGroupResponseData response) {
        if (member.isAwaitingJoin()) {
            awaitingJoin--;
        }
        return member.completeJoin(response);
    }

    int awaitingJoinCount() {
        return awaitingJoin;
    }

    /** Every member has rejoined and no pending member is still to come (Kafka's {@code hasAllMembersJoined}). */
    boolean allMembersJoined() {
        return members.size() == awaitingJoin && pendingMembers.isEmpty();
    }

    /** The members that have not rejoined in this rebalance. */
    List<MemberMetadata> notYetRejoined() {
        List<MemberMetadata> missing = new ArrayList<>();
        members.values().forEach(m -> {
            if (!m.isAwaitingJoin()) {
                missing.add(m);
            }
        });
        return missing;
    }

    /** If the leader did not rejoin, another member that did becomes leader; false if none rejoined. */
    boolean electJoinedLeader() {
        if (leaderId == null) {
            return false;
        }
        if (members.get(leaderId).isAwaitingJoin()) {
            return true;
        }
        for (MemberMetadata m : members.values()) {
            if (m.isAwaitingJoin()) {
                leaderId = m.memberId();
                return true;
            }
        }
        return false;
    }

    /** The largest rebalance timeout of the members: how long a rebalance waits. */
    int rebalanceTimeoutMs() {
        int max = 0;
        for (MemberMetadata m : members.values()) {
            max = Math.max(max, m.rebalanceTimeoutMs());
        }
        return max;
    }

    /**
     * Whether a member offering these protocols may join: in an empty group any non-empty offer;
     * otherwise the same protocol type and one protocol every member supports.
     */
    boolean supports(String memberProtocolType, Collection<String> memberProtocols) {
        if (is(GroupState.EMPTY)) {
            return !memberProtocolType.isEmpty() && !memberProtocols.isEmpty();
        }
        if (!memberProtocolType.equals(protocolType)) {
            return false;
        }
        for (String name : memberProtocols) {
            if (protocolVotes.getOrDefault(name, 0) == members.size()) {
                return true;
            }
        }
        return false;
    }

    /** The protocol the members vote for among those all of them support. */
    String selectProtocol() {
        Set<String> candidates = new LinkedHashSet<>();
        protocolVotes.forEach((name, count) -> {
            if (count == members.size()) {
                candidates.add(name);
            }
        });
        Map<String, Integer> votes = new LinkedHashMap<>();
        members.values().forEach(m -> votes.merge(m.vote(candidates), 1, Integer::sum));
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    /** Next generation: CompletingRebalance with the selected protocol, or Empty when no member is left. */
    void initNextGeneration(long nowMs) {
        generationId++;
        if (members.isEmpty()) {
            protocolName = null;
            transitionTo(GroupState.EMPTY, nowMs);
        } else {
            protocolName = selectProtocol();
            transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
        }
        pendingSyncMembers.clear();
    }

    /** The members as the leader's JoinGroup answer lists them, with their metadata for the selected protocol. */
    List<JoinGroupResponseMember> joinResponseMembers() {
        List<JoinGroupResponseMember> list = new ArrayList<>(members.size());
        members.values().forEach(m -> list.add(new JoinGroupResponseMember()
                .setMemberId(m.memberId())
                .setGroupInstanceId(m.groupInstanceId())
                .setMetadata(m.metadata(protocolName))));
        return list;
    }

    void addPendingSync(String memberId) {
        pendingSyncMembers.add(memberId);
    }

    void removePendingSync(String memberId) {
        pendingSyncMembers.remove(memberId);
    }

    Set<String> pendingSyncMembers() {
        return pendingSyncMembers;
    }

    void clearPendingSync() {
        pendingSyncMembers.clear();
    }

    // ---- offsets

    GroupOffsets offsets() {
        return offsets;
    }

    /** Whether nothing is left to keep: no member, no pending member, no offset. */
    boolean isDisposable() {
        return is(GroupState.EMPTY) && members.isEmpty() && pendingMembers.isEmpty() && offsets.isEmpty();
    }

    /**
     * Records a commit, replacing the partition's previous one.
     *
     * @return false, recording nothing, when the broker's memory budget has no room for it
     */
    boolean commit(TopicPartition partition, CommittedOffset offset) {
        return offsets.put(partition, offset);
    }
}
