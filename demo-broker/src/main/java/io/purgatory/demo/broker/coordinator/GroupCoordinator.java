package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupRequest;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's classic group coordinator on the purgatory: the group state machine of
 * {@link GroupState}, with every wait a delayed operation as in Kafka 3's
 * {@code GroupCoordinator}. The {@code rebalance} purgatory holds each rebalancing group's
 * {@link DelayedJoin} (or {@link InitialDelayedJoin} for an empty group's first rebalance) and
 * {@link DelayedSync}; the {@code heartbeat} purgatory holds a {@link DelayedHeartbeat} per member.
 * JoinGroup and SyncGroup answers that must wait are callbacks the members hold, called when the
 * phase completes; the others are returned at once.
 *
 * <p>Bounded: at most {@link GroupCoordinatorConfig#maxGroups()} groups, of which one client id may
 * have created at most {@link GroupCoordinatorConfig#maxGroupsPerClient()}, each with at most
 * {@link GroupCoordinatorConfig#maxSize()} members and pending members; offsets only for the
 * partitions the caller accepts (the broker's), so at most one per partition per group; group ids
 * of at most {@value #MAX_GROUP_ID_LENGTH} characters ({@code INVALID_GROUP_ID} past it, where Kafka
 * has no limit). An empty group with no offsets is removed at once. Offsets are kept apart, in
 * {@link GroupOffsets} under the {@link OffsetStore}, which expires them as Kafka's
 * {@code offsets.retention.minutes} does ({@link #expireOffsets}, run periodically by the broker)
 * and drops a deleted topic's ({@link #topicDeleted}).
 *
 * <p>Shutdown ({@link #close}): every parked JoinGroup and SyncGroup is answered
 * {@code NOT_COORDINATOR}, then the purgatories close; the operations they expire find the
 * coordinator closed and change nothing, so no member is removed and nothing expires twice.
 *
 * <p>Thread-safe. Each group's state is guarded by its {@link GroupMetadata}'s monitor; the group
 * map is a {@link ConcurrentHashMap} whose additions and removals happen under {@code groupsLock}
 * (taken after a group's monitor, never before); {@code closed} is volatile. Lock order: a delayed
 * operation's lock, then a group's monitor, then {@code groupsLock}. Code holding a group's monitor
 * calls the purgatories' {@code checkAndComplete} (which only try-locks operations) and
 * {@code tryCompleteElseWatch} for new operations, never {@code forceComplete} of an existing one.
 */
public final class GroupCoordinator implements AutoCloseable {
    /** Longest group id accepted. */
    public static final int MAX_GROUP_ID_LENGTH = 255;
    /** The protocol type of Kafka's consumers, whose subscriptions the coordinator can read. */
    public static final String CONSUMER_PROTOCOL_TYPE = ConsumerProtocol.PROTOCOL_TYPE;
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);
    private static final byte[] NO_BYTES = new byte[0];
    /** A refused group creation is logged at most once per this period, with a count of the others. */
    private static final long WARNING_PERIOD_MS = 10_000;

    private final GroupCoordinatorConfig config;
    private final DelayedOperationPurgatory<DelayedOperation> rebalancePurgatory;
    private final DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, GroupMetadata> groups = new ConcurrentHashMap<>();
    private final Object groupsLock = new Object();
    private final Map<String, Integer> groupsByCreator = new HashMap<>(); // guarded by groupsLock: client id to the groups it created, held
    private final OffsetStore offsetStore;
    private final ThrottledWarning groupCapWarning = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private final LongAdder rebalances = new LongAdder();
    private final LongAdder membersExpired = new LongAdder();
    private volatile boolean closed;

    /** A coordinator with its own {@code rebalance} and {@code heartbeat} purgatories on the wall clock. */
    public GroupCoordinator(GroupCoordinatorConfig config) {
        this(config, new DelayedOperationPurgatory<>("rebalance"), new DelayedOperationPurgatory<>("heartbeat"), System::currentTimeMillis);
    }

    /**
     * A coordinator on the given purgatories, which it closes with itself, and a clock in
     * milliseconds (the purgatories' timer's, for tests on manual time).
     */
    public GroupCoordinator(GroupCoordinatorConfig config, DelayedOperationPurgatory<DelayedOperation> rebalancePurgatory,
                            DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory, LongSupplier clock) {
        this.config = config;
        this.rebalancePurgatory = rebalancePurgatory;
        this.heartbeatPurgatory = heartbeatPurgatory;
        this.clock = clock;
        this.offsetStore = new OffsetStore(config.offsetsRetentionMs());
    }

    public GroupCoordinatorConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ JoinGroup

    /**
     * A JoinGroup, answered through {@code callback} once, now or when the join phase completes
     * (on another thread).
     *
     * @param version the request's version (v4+ gets {@code MEMBER_ID_REQUIRED} on a first join)
     */
    public void joinGroup(JoinGroupRequestData request, short version, String clientId, String clientHost,
                          Consumer<JoinGroupResponseData> callback) {
        String memberId = request.memberId();
        Errors invalid = !validGroupId(request.groupId()) ? Errors.INVALID_GROUP_ID
                : closed ? Errors.NOT_COORDINATOR
                : request.sessionTimeoutMs() < config.minSessionTimeoutMs() || request.sessionTimeoutMs() > config.maxSessionTimeoutMs()
                        ? Errors.INVALID_SESSION_TIMEOUT
                : null;
        if (invalid != null) {
            callback.accept(joinError(memberId, invalid));
            return;
        }
        boolean unknownMember = JoinGroupRequest.UNKNOWN_MEMBER_ID.equals(memberId);
        withGroup(request.groupId(), unknownMember ? clientId : null, group -> {
            doJoin(group, request, version, clientId, clientHost, callback);
            return null;
        }, missing -> {
            callback.accept(joinError(memberId, missing ? Errors.UNKNOWN_MEMBER_ID : Errors.COORDINATOR_NOT_AVAILABLE));
            return null;
        });
    }

    private void doJoin(GroupMetadata group, JoinGroupRequestData request, short version, String clientId, String clientHost,
                        Consumer<JoinGroupResponseData> callback) {
        String memberId = request.memberId();
        List<MemberMetadata.Protocol> protocols = protocols(request);
        List<String> names = protocols.stream().map(MemberMetadata.Protocol::name).toList();
        if (!acceptsJoiningMember(group, memberId)) {
            if (group.has(memberId)) {
                removeMember(group, group.member(memberId));
                afterMemberRemoval(group, "member " + memberId + " removed: the group is at group.max.size");
            }
            callback.accept(joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.GROUP_MAX_SIZE_REACHED));
        } else if (!group.supports(request.protocolType(), names)) {
            callback.accept(joinError(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
        } else if (JoinGroupRequest.UNKNOWN_MEMBER_ID.equals(memberId)) {
            joinNewMember(group, request, version, clientId, clientHost, protocols, callback);
        } else {
            joinExistingMember(group, request, clientId, clientHost, protocols, callback);
        }
    }

    /** Kafka's {@code acceptJoiningMember}, with pending members counted against the size too. */
    private boolean acceptsJoiningMember(GroupMetadata group, String memberId) {
        return switch (group.state()) {
            case PREPARING_REBALANCE -> (group.has(memberId) && group.member(memberId).isAwaitingJoin()) || group.isPending(memberId)
                    || group.awaitingJoinCount() + group.pendingCount() < config.maxSize();
            case COMPLETING_REBALANCE, STABLE ->
                    group.has(memberId) || group.isPending(memberId) || group.size() + group.pendingCount() < config.maxSize();
            default -> group.isPending(memberId) || group.size() + group.pendingCount() < config.maxSize(); // Empty
        };
    }

    private void joinNewMember(GroupMetadata group, JoinGroupRequestData request, short version, String clientId, String clientHost,
                               List<MemberMetadata.Protocol> protocols, Consumer<JoinGroupResponseData> callback) {
        String instanceId = request.groupInstanceId();
        String newMemberId = group.newMemberId(clientId, instanceId);
        if (instanceId != null) {
            String existing = group.staticMemberId(instanceId);
            if (existing != null) {
                rejoinStaticMember(group, request, version, group.member(existing), newMemberId, protocols, callback);
            } else {
                addMemberAndRebalance(group, request, newMemberId, clientId, clientHost, protocols, callback);
            }
        } else if (JoinGroupRequest.requiresKnownMemberId(version)) {
            group.addPending(newMemberId);
            scheduleHeartbeat(group, newMemberId, null, request.sessionTimeoutMs());
            callback.accept(joinError(newMemberId, Errors.MEMBER_ID_REQUIRED));
        } else {
            addMemberAndRebalance(group, request, newMemberId, clientId, clientHost, protocols, callback);
        }
    }

    private void joinExistingMember(GroupMetadata group, JoinGroupRequestData request, String clientId, String clientHost,
                                    List<MemberMetadata.Protocol> protocols, Consumer<JoinGroupResponseData> callback) {
        String memberId = request.memberId();
        if (group.isPending(memberId)) {
            if (request.groupInstanceId() != null) { // a pending member is never static (Kafka throws here)
                callback.accept(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
            } else {
                addMemberAndRebalance(group, request, memberId, clientId, clientHost, protocols, callback);
            }
            return;
        }
        Errors invalid = validateMember(group, memberId, request.groupInstanceId());
        if (invalid != Errors.NONE) {
            callback.accept(joinError(memberId, invalid));
            return;
        }
        MemberMetadata member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(group, member, request, protocols, callback);
            case COMPLETING_REBALANCE -> {
                if (member.matches(protocols)) { // it lost its JoinGroup answer: the same again
                    callback.accept(joinAnswer(group, member, group.isLeader(memberId), false));
                } else {
                    updateMemberAndRebalance(group, member, request, protocols, callback);
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(protocols)) {
                    updateMemberAndRebalance(group, member, request, protocols, callback);
                } else {
                    callback.accept(joinAnswer(group, member, false, false));
                }
            }
            default -> callback.accept(joinError(memberId, Errors.UNKNOWN_MEMBER_ID)); // Empty: the member is gone
        }
    }

    /** A known static member comes back with no member id: it takes the old one's place, fencing it. */
    private void rejoinStaticMember(GroupMetadata group, JoinGroupRequestData request, short version, MemberMetadata old, String newMemberId,
                                    List<MemberMetadata.Protocol> protocols, Consumer<JoinGroupResponseData> callback) {
        if (old.isAwaitingJoin()) {
            group.completeJoin(old, joinError(old.memberId(), Errors.FENCED_INSTANCE_ID));
        }
        old.completeSync(new SyncGroupResponseData().setErrorCode(Errors.FENCED_INSTANCE_ID.code()));
        MemberMetadata member = group.replaceStatic(old, newMemberId);
        heartbeatPurgatory.checkAndComplete(new GroupKeys.Member(group.groupId(), old.memberId()));
        scheduleHeartbeat(group, newMemberId, member, member.sessionTimeoutMs());
        String selectedBefore = group.protocolName();
        group.updateMember(member, protocols, request.rebalanceTimeoutMs(), request.sessionTimeoutMs());
        group.awaitJoin(member, callback);
        switch (group.state()) {
            case STABLE -> {
                if (group.selectProtocol().equals(selectedBefore)) { // no rebalance: the same assignment
                    boolean leader = group.isLeader(newMemberId);
                    boolean skip = leader && JoinGroupRequest.supportsSkippingAssignment(version);
                    group.completeJoin(member, joinAnswer(group, member, skip, skip));
                } else {
                    maybePrepareRebalance(group, "static member " + request.groupInstanceId() + " changed protocols");
                }
            }
            // the leader may be assigning to the old member id: start over
            case COMPLETING_REBALANCE -> prepareRebalance(group, "static member " + request.groupInstanceId() + " rejoined during the sync phase");
            default -> rebalancePurgatory.checkAndComplete(new GroupKeys.Join(group.groupId())); // PreparingRebalance
        }
    }

    private void addMemberAndRebalance(GroupMetadata group, JoinGroupRequestData request, String memberId, String clientId,
                                       String clientHost, List<MemberMetadata.Protocol> protocols, Consumer<JoinGroupResponseData> callback) {
        MemberMetadata member = new MemberMetadata(memberId, request.groupInstanceId(), clientId, clientHost, request.rebalanceTimeoutMs(),
                request.sessionTimeoutMs(), request.protocolType(), protocols);
        member.markNew();
        if (group.is(GroupState.PREPARING_REBALANCE) && group.previousState() == GroupState.EMPTY) {
            group.newMemberAdded(true);
        }
        member.awaitJoin(callback);
        group.add(member);
        // a new member cannot heartbeat before its first answer: Kafka gives it the new member join timeout
        scheduleHeartbeat(group, memberId, member, config.newMemberJoinTimeoutMs());
        maybePrepareRebalance(group, "member " + memberId + " joined");
    }

    private void updateMemberAndRebalance(GroupMetadata group, MemberMetadata member, JoinGroupRequestData request,
                                          List<MemberMetadata.Protocol> protocols, Consumer<JoinGroupResponseData> callback) {
        group.updateMember(member, protocols, request.rebalanceTimeoutMs(), request.sessionTimeoutMs());
        group.awaitJoin(member, callback);
        maybePrepareRebalance(group, "member " + member.memberId() + " rejoined");
    }

    private void maybePrepareRebalance(GroupMetadata group, String reason) {
        if (group.canRebalance()) {
            prepareRebalance(group, reason);
        } else if (group.is(GroupState.PREPARING_REBALANCE)) {
            rebalancePurgatory.checkAndComplete(new GroupKeys.Join(group.groupId()));
        }
    }

    private void prepareRebalance(GroupMetadata group, String reason) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            propagateAssignment(group, Errors.REBALANCE_IN_PROGRESS, null);
        }
        group.clearPendingSync();
        boolean initial = group.is(GroupState.EMPTY);
        DelayedOperation join = initial
                ? new InitialDelayedJoin(this, group, config.initialRebalanceDelayMs(),
                        Math.max(group.rebalanceTimeoutMs() - config.initialRebalanceDelayMs(), 0))
                : new DelayedJoin(this, group, group.rebalanceTimeoutMs());
        group.transitionTo(GroupState.PREPARING_REBALANCE, clock.getAsLong());
        LOG.info("preparing to rebalance group {} (generation {}): {}", group.groupId(), group.generationId(), reason);
        rebalancePurgatory.checkAndComplete(new GroupKeys.Sync(group.groupId())); // the old DelayedSync is over
        rebalancePurgatory.tryCompleteElseWatch(join, List.of(new GroupKeys.Join(group.groupId())));
    }

    /** For {@link DelayedJoin#tryComplete}: every member has rejoined. */
    boolean canCompleteJoin(GroupMetadata group) {
        synchronized (group) {
            return closed || !group.is(GroupState.PREPARING_REBALANCE) || group.allMembersJoined();
        }
    }

    /** For {@link InitialDelayedJoin}: its delay is over; wait once more if members came meanwhile, else complete. */
    void completeInitialJoin(GroupMetadata group, int delayMs, int remainingMs) {
        synchronized (group) {
            if (closed || !group.is(GroupState.PREPARING_REBALANCE)) {
                return;
            }
            if (group.newMemberAdded() && remainingMs != 0) {
                group.newMemberAdded(false);
                int nextDelay = Math.min(delayMs, remainingMs);
                InitialDelayedJoin next = new InitialDelayedJoin(this, group, nextDelay, Math.max(remainingMs - delayMs, 0));
                rebalancePurgatory.tryCompleteElseWatch(next, List.of(new GroupKeys.Join(group.groupId())));
            } else {
                completeJoin(group);
            }
        }
    }

    /**
     * Ends the join phase (Kafka's {@code onCompleteJoin}): removes the dynamic members that did not
     * rejoin, starts the next generation and answers every parked JoinGroup (the leader's with the
     * members and their metadata), then waits for SyncGroups in a {@link DelayedSync}.
     */
    void completeJoin(GroupMetadata group) {
        synchronized (group) {
            if (closed || !group.is(GroupState.PREPARING_REBALANCE)) {
                return;
            }
            for (MemberMetadata missing : group.notYetRejoined()) {
                if (!missing.isStatic()) {
                    removeMember(group, missing);
                }
            }
            if (!group.electJoinedLeader() && group.size() > 0) {
                // only static members that did not rejoin are left: wait another rebalance timeout for them
                rebalancePurgatory.tryCompleteElseWatch(new DelayedJoin(this, group, group.rebalanceTimeoutMs()),
                        List.of(new GroupKeys.Join(group.groupId())));
                return;
            }
            group.initNextGeneration(clock.getAsLong());
            rebalances.increment();
            if (group.is(GroupState.EMPTY)) {
                LOG.info("group {} is empty at generation {}", group.groupId(), group.generationId());
                maybeRemove(group);
                return;
            }
            LOG.info("group {} generation {}: {} member(s), protocol {}, leader {}", group.groupId(), group.generationId(), group.size(),
                    group.protocolName(), group.leaderId());
            for (MemberMetadata member : group.members()) {
                group.completeJoin(member, joinAnswer(group, member, group.isLeader(member.memberId()), false));
                scheduleHeartbeat(group, member.memberId(), member, member.sessionTimeoutMs());
                group.addPendingSync(member.memberId());
            }
            rebalancePurgatory.tryCompleteElseWatch(new DelayedSync(this, group, group.generationId(), group.rebalanceTimeoutMs()),
                    List.of(new GroupKeys.Sync(group.groupId())));
        }
    }

    // ------------------------------------------------------------------ SyncGroup

    /** A SyncGroup, answered through {@code callback} once, now or when the leader's assignment arrives. */
    public void syncGroup(SyncGroupRequestData request, Consumer<SyncGroupResponseData> callback) {
        if (!validGroupId(request.groupId())) {
            callback.accept(syncError(Errors.INVALID_GROUP_ID));
            return;
        }
        if (closed) {
            callback.accept(syncError(Errors.NOT_COORDINATOR));
            return;
        }
        withGroup(request.groupId(), null, group -> {
            doSync(group, request, callback);
            return null;
        }, missing -> {
            callback.accept(syncError(Errors.UNKNOWN_MEMBER_ID));
            return null;
        });
    }

    private void doSync(GroupMetadata group, SyncGroupRequestData request, Consumer<SyncGroupResponseData> callback) {
        String memberId = request.memberId();
        Errors invalid = group.is(GroupState.EMPTY) ? Errors.UNKNOWN_MEMBER_ID : validateMember(group, memberId, request.groupInstanceId());
        if (invalid == Errors.NONE && request.generationId() != group.generationId()) {
            invalid = Errors.ILLEGAL_GENERATION;
        }
        if (invalid == Errors.NONE && (inconsistent(request.protocolType(), group.protocolType())
                || inconsistent(request.protocolName(), group.protocolName()))) {
            invalid = Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        if (invalid != Errors.NONE) {
            callback.accept(syncError(invalid));
            return;
        }
        MemberMetadata member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE -> callback.accept(syncError(Errors.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                member.awaitSync(callback);
                group.removePendingSync(memberId);
                rebalancePurgatory.checkAndComplete(new GroupKeys.Sync(group.groupId()));
                if (group.isLeader(memberId)) {
                    Map<String, byte[]> assignment = new LinkedHashMap<>();
                    request.assignments().forEach(a -> assignment.put(a.memberId(), a.assignment()));
                    propagateAssignment(group, Errors.NONE, assignment);
                    group.transitionTo(GroupState.STABLE, clock.getAsLong());
                }
            }
            default -> { // Stable: the assignment is known
                group.removePendingSync(memberId);
                rebalancePurgatory.checkAndComplete(new GroupKeys.Sync(group.groupId()));
                callback.accept(new SyncGroupResponseData().setProtocolType(group.protocolType()).setProtocolName(group.protocolName())
                        .setAssignment(member.assignment()));
            }
        }
    }

    private static boolean inconsistent(String requested, String actual) {
        return requested != null && actual != null && !requested.equals(actual);
    }

    /**
     * Sets each member's assignment (none when {@code assignment} is null: the error case) and
     * answers the parked SyncGroups; a member answered gets a fresh session.
     */
    private void propagateAssignment(GroupMetadata group, Errors error, Map<String, byte[]> assignment) {
        for (MemberMetadata member : group.members()) {
            member.assignment(assignment == null ? new byte[0] : assignment.getOrDefault(member.memberId(), new byte[0]));
            SyncGroupResponseData response = new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(member.assignment());
            if (error == Errors.NONE) {
                response.setProtocolType(group.protocolType()).setProtocolName(group.protocolName());
            }
            if (member.completeSync(response)) {
                scheduleHeartbeat(group, member.memberId(), member, member.sessionTimeoutMs());
            }
        }
    }

    /** For {@link DelayedSync#tryComplete}: nothing is left to wait for in that generation. */
    boolean syncSettled(GroupMetadata group, int generationId) {
        synchronized (group) {
            return closed || group.generationId() != generationId
                    || !(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))
                    || group.pendingSyncMembers().isEmpty();
        }
    }

    /** For {@link DelayedSync#onExpiration}: removes the members that never sent SyncGroup and rebalances. */
    void expirePendingSync(GroupMetadata group, int generationId) {
        synchronized (group) {
            if (closed || group.generationId() != generationId || group.pendingSyncMembers().isEmpty()
                    || !(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))) {
                return;
            }
            Set<String> missing = new HashSet<>(group.pendingSyncMembers());
            LOG.info("group {} generation {}: removing member(s) that sent no SyncGroup within the rebalance timeout: {}",
                    group.groupId(), generationId, missing);
            missing.forEach(id -> removeMember(group, group.member(id)));
            prepareRebalance(group, "members " + missing + " sent no SyncGroup");
        }
    }

    // ------------------------------------------------------------------ Heartbeat

    /** A Heartbeat: its error, {@code NONE} when the member is in good standing. */
    public Errors heartbeat(String groupId, String memberId, String groupInstanceId, int generationId) {
        if (!validGroupId(groupId)) {
            return Errors.INVALID_GROUP_ID;
        }
        if (closed) {
            return Errors.NOT_COORDINATOR;
        }
        return withGroup(groupId, null, group -> {
            Errors invalid = validateMember(group, memberId, groupInstanceId);
            if (invalid != Errors.NONE) {
                return invalid;
            }
            if (generationId != group.generationId()) {
                return Errors.ILLEGAL_GENERATION;
            }
            MemberMetadata member = group.member(memberId);
            return switch (group.state()) {
                case PREPARING_REBALANCE -> {
                    scheduleHeartbeat(group, memberId, member, member.sessionTimeoutMs());
                    yield Errors.REBALANCE_IN_PROGRESS;
                }
                case COMPLETING_REBALANCE, STABLE -> {
                    scheduleHeartbeat(group, memberId, member, member.sessionTimeoutMs());
                    yield Errors.NONE;
                }
                default -> Errors.UNKNOWN_MEMBER_ID;
            };
        }, missing -> Errors.UNKNOWN_MEMBER_ID);
    }

    /**
     * Parks the member's next {@link DelayedHeartbeat} and completes the one it replaces. For a
     * pending member ({@code member} null) the first and only one.
     */
    private void scheduleHeartbeat(GroupMetadata group, String memberId, MemberMetadata member, long timeoutMs) {
        DelayedHeartbeat next = new DelayedHeartbeat(this, group, memberId, member == null, timeoutMs);
        if (member != null) {
            member.heartbeat(next, clock.getAsLong());
        }
        GroupKeys.Member key = new GroupKeys.Member(group.groupId(), memberId);
        heartbeatPurgatory.checkAndComplete(key);
        heartbeatPurgatory.tryCompleteElseWatch(next, List.of(key));
    }

    /** For {@link DelayedHeartbeat#tryComplete}: a newer heartbeat replaced it, or its member is gone. */
    boolean heartbeatSuperseded(GroupMetadata group, DelayedHeartbeat heartbeat) {
        synchronized (group) {
            if (closed || group.is(GroupState.DEAD)) {
                return true;
            }
            if (heartbeat.isPending()) {
                return !group.isPending(heartbeat.memberId());
            }
            MemberMetadata member = group.member(heartbeat.memberId());
            return member == null || member.heartbeat() != heartbeat;
        }
    }

    /** For {@link DelayedHeartbeat#onExpiration}: the session timed out. */
    void expireHeartbeat(GroupMetadata group, DelayedHeartbeat heartbeat) {
        synchronized (group) {
            if (closed || group.is(GroupState.DEAD)) {
                return;
            }
            String memberId = heartbeat.memberId();
            if (heartbeat.isPending()) {
                if (group.isPending(memberId)) {
                    LOG.info("group {}: pending member {} did not rejoin within its session timeout", group.groupId(), memberId);
                    group.remove(memberId);
                    afterMemberRemoval(group, "pending member " + memberId + " did not rejoin");
                }
                return;
            }
            MemberMetadata member = group.member(memberId);
            if (member == null || member.heartbeat() != heartbeat) {
                return; // superseded meanwhile
            }
            if (!member.isNew() && (member.isAwaitingJoin() || member.isAwaitingSync())) {
                scheduleHeartbeat(group, memberId, member, member.sessionTimeoutMs()); // its answer is what it waits for
                return;
            }
            LOG.debug("group {}: member {} expired after its session timeout of {} ms", group.groupId(), memberId,
                    member.isNew() ? config.newMemberJoinTimeoutMs() : member.sessionTimeoutMs());
            membersExpired.increment();
            group.countExpiredMember();
            removeMember(group, member);
            if (group.members().isEmpty()) {
                LOG.info("group {}: {} member(s) expired after their session timeout; the group is empty", group.groupId(),
                        group.takeExpiredMembers());
            }
            afterMemberRemoval(group, "member " + memberId + "'s session expired");
        }
    }

    // ------------------------------------------------------------------ LeaveGroup

    /** A LeaveGroup of one or more members: one response per member, in order. */
    public List<MemberResponse> leaveGroup(String groupId, List<MemberIdentity> leaving) {
        List<MemberResponse> noGroup = new ArrayList<>();
        if (!validGroupId(groupId) || closed) {
            Errors error = closed ? Errors.NOT_COORDINATOR : Errors.INVALID_GROUP_ID;
            leaving.forEach(m -> noGroup.add(memberResponse(m, error)));
            return noGroup;
        }
        return withGroup(groupId, null, group -> {
            List<MemberResponse> responses = new ArrayList<>(leaving.size());
            List<String> removed = new ArrayList<>();
            for (MemberIdentity m : leaving) {
                Errors error;
                if (JoinGroupRequest.UNKNOWN_MEMBER_ID.equals(m.memberId())) {
                    String staticId = m.groupInstanceId() == null ? null : group.staticMemberId(m.groupInstanceId());
                    error = staticId == null ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE;
                    if (staticId != null) {
                        removeMember(group, group.member(staticId));
                    }
                } else if (group.isPending(m.memberId())) {
                    group.remove(m.memberId());
                    heartbeatPurgatory.checkAndComplete(new GroupKeys.Member(groupId, m.memberId()));
                    error = Errors.NONE;
                } else {
                    error = validateMember(group, m.memberId(), m.groupInstanceId());
                    if (error == Errors.NONE) {
                        removeMember(group, group.member(m.memberId()));
                    }
                }
                if (error == Errors.NONE) {
                    removed.add(m.groupInstanceId() == null ? m.memberId() : m.memberId() + " (" + m.groupInstanceId() + ")");
                }
                responses.add(memberResponse(m, error));
            }
            if (!removed.isEmpty()) {
                String who = (removed.size() == 1 ? "member " : "members ") + String.join(", ", removed);
                LOG.info("group {}: {} left (LeaveGroup)", groupId, who);
                afterMemberRemoval(group, who + " left");
            }
            return responses;
        }, missing -> {
            leaving.forEach(m -> noGroup.add(memberResponse(m, Errors.UNKNOWN_MEMBER_ID)));
            return noGroup;
        });
    }

    private static MemberResponse memberResponse(MemberIdentity m, Errors error) {
        return new MemberResponse().setMemberId(m.memberId()).setGroupInstanceId(m.groupInstanceId()).setErrorCode(error.code());
    }

    /**
     * Takes a member out: its parked JoinGroup is answered {@code UNKNOWN_MEMBER_ID} (so a live
     * client rejoins) and its session leaves the heartbeat purgatory.
     */
    private void removeMember(GroupMetadata group, MemberMetadata member) {
        group.completeJoin(member, joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID));
        member.completeSync(syncError(Errors.UNKNOWN_MEMBER_ID));
        group.remove(member.memberId());
        heartbeatPurgatory.checkAndComplete(new GroupKeys.Member(group.groupId(), member.memberId()));
    }

    /**
     * After members were removed (for {@code reason}, which the rebalance log line gives): a stable
     * group rebalances, a rebalancing one may now be complete, an empty one may go.
     */
    private void afterMemberRemoval(GroupMetadata group, String reason) {
        if (group.is(GroupState.STABLE) || group.is(GroupState.COMPLETING_REBALANCE)) {
            prepareRebalance(group, reason);
        } else if (group.is(GroupState.PREPARING_REBALANCE)) {
            rebalancePurgatory.checkAndComplete(new GroupKeys.Join(group.groupId()));
        } else {
            maybeRemove(group);
        }
    }

    // ------------------------------------------------------------------ offsets

    /** The outcome of an OffsetCommit: one error for the whole request, or one per partition. */
    public record CommitResult(Errors groupError, Map<TopicPartition, Errors> partitionErrors) {
        /** The error of one partition of the request. */
        public Errors error(TopicPartition partition) {
            return groupError != Errors.NONE ? groupError : partitionErrors.getOrDefault(partition, Errors.NONE);
        }
    }

    /**
     * Commits offsets, validated as Kafka's classic groups do: a member of the current generation, or
     * anyone (generation -1, no member id) while the group is empty, which creates a "simple" group
     * (counted against {@code clientId}'s groups).
     * Metadata past {@code offset.metadata.max.bytes} gets {@code OFFSET_METADATA_TOO_LARGE}.
     */
    public CommitResult commitOffsets(String groupId, String memberId, String groupInstanceId, int generationId, String clientId,
                                      Map<TopicPartition, CommittedOffset> offsets) {
        if (!validGroupId(groupId)) {
            return new CommitResult(Errors.INVALID_GROUP_ID, Map.of());
        }
        if (closed) {
            return new CommitResult(Errors.NOT_COORDINATOR, Map.of());
        }
        return withGroup(groupId, generationId < 0 ? clientId : null, group -> {
            Errors invalid = validateCommit(group, memberId, groupInstanceId, generationId);
            if (invalid != Errors.NONE) {
                maybeRemove(group);
                return new CommitResult(invalid, Map.of());
            }
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            long now = clock.getAsLong();
            offsets.forEach((partition, offset) -> {
                String metadata = offset.metadata() == null ? "" : offset.metadata();
                if (metadata.length() > config.maxOffsetMetadataBytes()) {
                    errors.put(partition, Errors.OFFSET_METADATA_TOO_LARGE);
                } else {
                    group.commit(partition, new CommittedOffset(offset.offset(), offset.leaderEpoch(), metadata, now));
                    errors.put(partition, Errors.NONE);
                }
            });
            maybeRemove(group);
            return new CommitResult(Errors.NONE, errors);
        }, missing -> new CommitResult(missing ? Errors.ILLEGAL_GENERATION : Errors.COORDINATOR_NOT_AVAILABLE, Map.of()));
    }

    private static Errors validateCommit(GroupMetadata group, String memberId, String groupInstanceId, int generationId) {
        if (generationId < 0 && group.is(GroupState.EMPTY)) {
            return Errors.NONE;
        }
        if (generationId >= 0 || !memberId.isEmpty() || groupInstanceId != null) {
            Errors invalid = validateMember(group, memberId, groupInstanceId);
            if (invalid != Errors.NONE) {
                return invalid;
            }
            if (generationId != group.generationId()) {
                return Errors.ILLEGAL_GENERATION;
            }
        } else if (!group.is(GroupState.EMPTY)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return group.is(GroupState.COMPLETING_REBALANCE) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    /**
     * The group's committed offsets for {@code partitions}, or all of them when null; a partition
     * with none is absent. An unknown group has none.
     */
    public Map<TopicPartition, CommittedOffset> fetchOffsets(String groupId, Collection<TopicPartition> partitions) {
        if (!validGroupId(groupId)) {
            return Map.of();
        }
        return withGroup(groupId, null, group -> {
            if (partitions == null) {
                return group.offsets().snapshot();
            }
            Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
            {
                partitions.forEach(p -> {
                    CommittedOffset offset = group.offsets().get(p);
                    if (offset != null) {
                        result.put(p, offset);
                    }
                });
            }
            return result;
        }, missing -> Map.of());
    }

    /**
     * An OffsetDelete: {@code GROUP_ID_NOT_FOUND} for an unknown group, {@code NON_EMPTY_GROUP} for a
     * group with members that is not a consumer group; in a consumer group with members, the
     * partitions of topics it subscribes to get {@code GROUP_SUBSCRIBED_TO_TOPIC}.
     */
    public CommitResult deleteOffsets(String groupId, Collection<TopicPartition> partitions) {
        if (!validGroupId(groupId)) {
            return new CommitResult(Errors.INVALID_GROUP_ID, Map.of());
        }
        if (closed) {
            return new CommitResult(Errors.NOT_COORDINATOR, Map.of());
        }
        return withGroup(groupId, null, group -> {
            boolean hasMembers = !group.is(GroupState.EMPTY);
            if (hasMembers && !CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
                return new CommitResult(Errors.NON_EMPTY_GROUP, Map.of());
            }
            Set<String> subscribed = hasMembers ? subscribedTopics(group) : Set.of();
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            for (TopicPartition p : partitions) {
                if (subscribed.contains(p.topic())) {
                    errors.put(p, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
                } else {
                    group.offsets().remove(p);
                    errors.put(p, Errors.NONE);
                }
            }
            maybeRemove(group);
            return new CommitResult(Errors.NONE, errors);
        }, missing -> new CommitResult(Errors.GROUP_ID_NOT_FOUND, Map.of()));
    }

    /** The topics a consumer group's members subscribe to; a subscription that does not parse counts as none. */
    private static Set<String> subscribedTopics(GroupMetadata group) {
        Set<String> topics = new HashSet<>();
        for (MemberMetadata member : group.members()) {
            try {
                topics.addAll(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(member.metadata(group.protocolName()))).topics());
            } catch (RuntimeException garbage) {
                LOG.debug("group {}: member {} has a subscription that does not parse", group.groupId(), member.memberId());
            }
        }
        return topics;
    }

    // ------------------------------------------------------------------ admin: list, describe, delete

    /** The groups in the given states (any when empty), as ListGroups and DescribeGroups see them. */
    public List<GroupSummary> listGroups(Set<GroupState> states) {
        List<GroupSummary> list = new ArrayList<>();
        for (GroupMetadata group : groups.values()) {
            synchronized (group) {
                if (!group.is(GroupState.DEAD) && (states.isEmpty() || states.contains(group.state()))) {
                    list.add(summary(group, false));
                }
            }
        }
        return list;
    }

    /** One group with its members and offsets, or null when the coordinator has no such group. */
    public GroupSummary describeGroup(String groupId) {
        if (!validGroupId(groupId)) {
            return null;
        }
        return withGroup(groupId, null, group -> summary(group, true), missing -> null);
    }

    /** Every group, described, for the dashboard and /metrics. */
    public List<GroupSummary> describeGroups() {
        List<GroupSummary> list = new ArrayList<>();
        for (GroupMetadata group : groups.values()) {
            synchronized (group) {
                if (!group.is(GroupState.DEAD)) {
                    list.add(summary(group, true));
                }
            }
        }
        return list;
    }

    private GroupSummary summary(GroupMetadata group, boolean withMembers) {
        List<GroupSummary.Member> members = new ArrayList<>();
        long now = clock.getAsLong();
        if (withMembers) {
            boolean stable = group.is(GroupState.STABLE);
            for (MemberMetadata m : group.members()) {
                members.add(new GroupSummary.Member(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                        readOnly(stable ? m.metadata(group.protocolName()) : NO_BYTES), readOnly(stable ? m.assignment() : NO_BYTES),
                        now - m.lastHeartbeatMs(), m.sessionTimeoutMs()));
            }
        }
        return new GroupSummary(group.groupId(), group.state(), group.generationId(), group.protocolType() == null ? "" : group.protocolType(),
                group.protocolName() == null ? "" : group.protocolName(), group.leaderId(), members,
                withMembers ? group.offsets().snapshot() : Map.of());
    }

    /**
     * Deletes groups: {@code GROUP_ID_NOT_FOUND} for an unknown one, {@code NON_EMPTY_GROUP} for one
     * with members; an empty group goes with its offsets. A group named twice is answered once, with
     * what its first deletion did.
     */
    public Map<String, Errors> deleteGroups(Collection<String> groupIds) {
        Map<String, Errors> result = new LinkedHashMap<>();
        for (String groupId : groupIds) {
            if (result.containsKey(groupId)) {
                continue;
            }
            if (!validGroupId(groupId)) {
                result.put(groupId, Errors.INVALID_GROUP_ID);
            } else if (closed) {
                result.put(groupId, Errors.NOT_COORDINATOR);
            } else {
                result.put(groupId, withGroup(groupId, null, group -> {
                    if (!group.is(GroupState.EMPTY)) {
                        return Errors.NON_EMPTY_GROUP;
                    }
                    remove(group);
                    return Errors.NONE;
                }, missing -> Errors.GROUP_ID_NOT_FOUND));
            }
        }
        return result;
    }

    // ------------------------------------------------------------------ metrics

    /** Rebalances completed (generations started, empty ones included). */
    public long rebalances() {
        return rebalances.sum();
    }

    /** Members removed because their session timed out. */
    public long membersExpired() {
        return membersExpired.sum();
    }

    public PurgatoryMetrics rebalancePurgatoryMetrics() {
        return rebalancePurgatory.metrics();
    }

    public PurgatoryMetrics heartbeatPurgatoryMetrics() {
        return heartbeatPurgatory.metrics();
    }

    /** Groups held now. */
    public int groupCount() {
        return groups.size();
    }

    // ------------------------------------------------------------------ offset retention, deleted topics

    /**
     * Drops the offsets whose retention has passed ({@link OffsetStore}) and removes the empty
     * groups left with none; logs one line when it dropped any. Kafka runs this every
     * {@code offsets.retention.check.interval.ms}; so does the broker.
     *
     * @return the offsets dropped
     */
    public int expireOffsets() {
        long now = clock.getAsLong();
        int expired = 0;
        int removed = 0;
        for (GroupMetadata group : groups.values()) {
            synchronized (group) {
                if (closed || group.is(GroupState.DEAD)) {
                    continue;
                }
                int dropped = offsetStore.expire(group, now);
                if (dropped > 0) {
                    expired += dropped;
                    if (group.isDisposable()) {
                        remove(group);
                        removed++;
                    }
                }
            }
        }
        if (expired > 0) {
            LOG.info("offset retention: expired {} offset(s); removed {} empty group(s) left without offsets", expired, removed);
        }
        return expired;
    }

    /**
     * A topic was deleted: its offsets go from every group that holds some (as Kafka drops a deleted
     * partition's offsets), and the empty groups left with none are removed.
     *
     * @return the offsets dropped
     */
    public int topicDeleted(String topic) {
        int dropped = 0;
        for (String groupId : offsetStore.groupsHolding(topic)) {
            GroupMetadata group = groups.get(groupId);
            if (group == null) {
                continue;
            }
            synchronized (group) {
                if (!group.is(GroupState.DEAD)) {
                    dropped += group.offsets().removeTopic(topic);
                    maybeRemove(group);
                }
            }
        }
        return dropped;
    }

    // ------------------------------------------------------------------ shutdown

    /**
     * Answers every parked JoinGroup and SyncGroup with {@code NOT_COORDINATOR}, then closes the
     * purgatories; what they expire finds the coordinator closed and changes nothing. Requests from
     * now on are answered {@code NOT_COORDINATOR}. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        int answered = 0;
        for (GroupMetadata group : groups.values()) {
            synchronized (group) {
                for (MemberMetadata member : group.members()) {
                    if (group.completeJoin(member, joinError(member.memberId(), Errors.NOT_COORDINATOR))) {
                        answered++;
                    }
                    if (member.completeSync(syncError(Errors.NOT_COORDINATOR))) {
                        answered++;
                    }
                }
            }
        }
        if (answered > 0) {
            LOG.info("group coordinator closing: answered {} parked JoinGroup/SyncGroup request(s) with NOT_COORDINATOR", answered);
        }
        rebalancePurgatory.close();
        heartbeatPurgatory.close();
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Runs {@code action} on the group under its monitor; a group found dead (removed meanwhile) is
     * looked up again. When there is no group and {@code creator} is null, or none may be created
     * (the cap, or the creator's client id has created {@link GroupCoordinatorConfig#maxGroupsPerClient()}
     * groups still held), {@code absent} runs instead, told whether the group was simply missing
     * (true) or refused (false).
     *
     * @param creator the client id of the request, when it may create the group; null when it may not
     */
    private <R> R withGroup(String groupId, String creator, Function<GroupMetadata, R> action, Function<Boolean, R> absent) {
        while (true) {
            GroupMetadata group = groups.get(groupId);
            if (group == null && creator != null) {
                synchronized (groupsLock) {
                    group = groups.get(groupId);
                    if (group == null) {
                        if (groups.size() >= config.maxGroups()) {
                            groupCapWarning.warn("refusing new groups: " + config.maxGroups() + " are held (--max-groups)");
                            return absent.apply(false);
                        }
                        int created = groupsByCreator.getOrDefault(creator, 0);
                        if (created >= config.maxGroupsPerClient()) {
                            groupCapWarning.warn("refusing a new group to client id '" + creator + "': it created " + created
                                    + " groups still held (--max-groups-per-client)");
                            return absent.apply(false);
                        }
                        groupsByCreator.put(creator, created + 1);
                        group = new GroupMetadata(groupId, clock.getAsLong(), offsetStore.newGroup(groupId), creator);
                        groups.put(groupId, group);
                    }
                }
            }
            if (group == null) {
                return absent.apply(true);
            }
            synchronized (group) {
                if (!group.is(GroupState.DEAD)) {
                    return action.apply(group);
                }
            }
        }
    }

    /** Removes an empty group that holds nothing (no member, no offset); under its monitor. */
    private void maybeRemove(GroupMetadata group) {
        if (group.isDisposable()) {
            remove(group);
        }
    }

    private void remove(GroupMetadata group) {
        group.transitionTo(GroupState.DEAD, clock.getAsLong());
        group.offsets().clear();
        synchronized (groupsLock) {
            if (groups.remove(group.groupId(), group)) {
                groupsByCreator.computeIfPresent(group.creatorClientId(), (client, created) -> created > 1 ? created - 1 : null);
            }
        }
        for (String pending : List.copyOf(group.pendingMembers())) { // their sessions see the group dead
            group.remove(pending);
            heartbeatPurgatory.checkAndComplete(new GroupKeys.Member(group.groupId(), pending));
        }
    }

    private static Errors validateMember(GroupMetadata group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String existing = group.staticMemberId(groupInstanceId);
            if (existing == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!existing.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        return group.has(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    /** A read-only view of {@code bytes}, for a {@link GroupSummary} that leaves the group's lock. */
    private static ByteBuffer readOnly(byte[] bytes) {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    private static boolean validGroupId(String groupId) {
        return groupId != null && !groupId.isEmpty() && groupId.length() <= MAX_GROUP_ID_LENGTH;
    }

    private static List<MemberMetadata.Protocol> protocols(JoinGroupRequestData request) {
        List<MemberMetadata.Protocol> list = new ArrayList<>(request.protocols().size());
        for (JoinGroupRequestProtocol p : request.protocols()) {
            list.add(new MemberMetadata.Protocol(p.name(), p.metadata()));
        }
        return list;
    }

    private static JoinGroupResponseData joinAnswer(GroupMetadata group, MemberMetadata member, boolean withMembers, boolean skipAssignment) {
        return new JoinGroupResponseData()
                .setMembers(withMembers ? group.joinResponseMembers() : List.of())
                .setMemberId(member.memberId())
                .setGenerationId(group.generationId())
                .setProtocolType(group.protocolType())
                .setProtocolName(group.protocolName())
                .setLeader(group.leaderId())
                .setSkipAssignment(skipAssignment);
    }

    private static JoinGroupResponseData joinError(String memberId, Errors error) {
        return new JoinGroupResponseData().setMemberId(memberId).setGenerationId(-1).setProtocolName(null).setProtocolType(null)
                .setLeader("").setErrorCode(error.code());
    }

    private static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]).setProtocolName(null).setProtocolType(null);
    }
}
