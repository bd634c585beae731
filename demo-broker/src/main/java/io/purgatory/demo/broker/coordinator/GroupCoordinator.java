package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.Purgatories;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
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
 * <p>Bounded: at most {@link GroupCoordinatorConfig#maxGroups()} groups, of which the clients at one
 * address may have created at most {@link GroupCoordinatorConfig#maxGroupsPerAddress()} and one client
 * id at one address at most {@link GroupCoordinatorConfig#maxGroupsPerClient()}, each with at most
 * {@link GroupCoordinatorConfig#maxSize()} members and pending members; offsets only for the
 * partitions the caller accepts (the broker's), so at most one per partition per group; group ids
 * of at most {@value #MAX_GROUP_ID_LENGTH} characters ({@code INVALID_GROUP_ID} past it, where Kafka
 * has no limit). An empty group with no offsets is removed at once.
 *
 * <p>Its parts, each in its own class: the members' requests reach it through
 * {@link GroupMembership}; the groups themselves (lookup, creation within the caps, removal) are the
 * {@link GroupRegistry}'s; committed offsets are kept in {@link GroupOffsets} under the
 * {@link OffsetStore}; the admin queries and the offsets' retention are {@link GroupAdmin}'s
 * ({@link #admin()}); its two purgatories are registered in a {@link Purgatories}.
 *
 * <p>Shutdown ({@link #close}): every parked JoinGroup and SyncGroup is answered
 * {@code NOT_COORDINATOR}, then the purgatories close; the operations they expire find the
 * coordinator closed and change nothing, so no member is removed and nothing expires twice.
 *
 * <p>Thread-safe. Each group's state is guarded by its {@link GroupMetadata}'s monitor; the
 * {@link GroupRegistry} is thread-safe. Lock order: a delayed operation's lock, then a group's
 * monitor, then the registry's lock. Code holding a group's monitor calls the purgatories'
 * {@code checkAndComplete} (which only try-locks operations) and {@code tryCompleteElseWatch} for
 * new operations, never {@code forceComplete} of an existing one.
 */
public final class GroupCoordinator implements GroupMembership, AutoCloseable {
    /** Longest group id accepted. */
    public static final int MAX_GROUP_ID_LENGTH = 255;
    /** The protocol type of Kafka's consumers, whose subscriptions the coordinator can read. */
    public static final String CONSUMER_PROTOCOL_TYPE = ConsumerProtocol.PROTOCOL_TYPE;
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    private final GroupCoordinatorConfig config;
    private final Purgatories purgatories = new Purgatories();
    private final DelayedOperationPurgatory<DelayedOperation> rebalancePurgatory;
    private final DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory;
    private final LongSupplier clock;
    private final MemoryBudget budget;
    private final GroupRegistry groups;
    private final GroupAdmin admin;
    private final LongAdder rebalances = new LongAdder();
    private final LongAdder membersExpired = new LongAdder();

    /** A coordinator with its own {@code rebalance} and {@code heartbeat} purgatories on the wall clock, bounded by no memory budget. */
    public GroupCoordinator(GroupCoordinatorConfig config) {
        this(config, MemoryBudget.unbounded());
    }

    /** A coordinator with its own purgatories on the wall clock, its groups and offsets counted in {@code budget}. */
    public GroupCoordinator(GroupCoordinatorConfig config, MemoryBudget budget) {
        this(config, new DelayedOperationPurgatory<>("rebalance"), new DelayedOperationPurgatory<>("heartbeat"), System::currentTimeMillis,
                budget);
    }

    /**
     * A coordinator on the given purgatories, which it closes with itself, and a clock in
     * milliseconds (the purgatories' timer's, for tests on manual time), bounded by no memory budget.
     */
    public GroupCoordinator(GroupCoordinatorConfig config, DelayedOperationPurgatory<DelayedOperation> rebalancePurgatory,
                            DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory, LongSupplier clock) {
        this(config, rebalancePurgatory, heartbeatPurgatory, clock, MemoryBudget.unbounded());
    }

    /**
     * A coordinator on the given purgatories and clock, its groups and committed offsets counted in
     * {@code budget}: past it a new group gets {@code COORDINATOR_NOT_AVAILABLE}, and so does each
     * partition of a commit that would add to it.
     */
    public GroupCoordinator(GroupCoordinatorConfig config, DelayedOperationPurgatory<DelayedOperation> rebalancePurgatory,
                            DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory, LongSupplier clock, MemoryBudget budget) {
        this.config = config;
        this.rebalancePurgatory = purgatories.register(rebalancePurgatory);
        this.heartbeatPurgatory = purgatories.register(heartbeatPurgatory);
        this.clock = clock;
        this.budget = budget;
        this.groups = new GroupRegistry(config, clock, heartbeatPurgatory, budget);
        this.admin = new GroupAdmin(groups, clock);
    }

    public GroupCoordinatorConfig config() {
        return config;
    }

    /** The admin queries on the same groups: list, describe, delete; offsets fetch, delete, retention. */
    public GroupAdmin admin() {
        return admin;
    }

    // ------------------------------------------------------------------ JoinGroup

    /** A JoinGroup, answered now or when the join phase completes (on another thread). */
    @Override
    public void joinGroup(JoinGroupRequestData request, short version, String clientId, String clientHost,
                          Consumer<JoinGroupResponseData> callback) {
        String memberId = request.memberId();
        Errors invalid = !GroupRegistry.validGroupId(request.groupId()) ? Errors.INVALID_GROUP_ID
                : groups.closed() ? Errors.NOT_COORDINATOR
                : request.sessionTimeoutMs() < config.minSessionTimeoutMs() || request.sessionTimeoutMs() > config.maxSessionTimeoutMs()
                        ? Errors.INVALID_SESSION_TIMEOUT
                : null;
        if (invalid != null) {
            callback.accept(joinError(memberId, invalid));
            return;
        }
        boolean unknownMember = JoinGroupRequest.UNKNOWN_MEMBER_ID.equals(memberId);
        groups.withGroup(request.groupId(), unknownMember ? new GroupCreator(clientId, clientHost) : null, group -> {
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
            return groups.closed() || !group.is(GroupState.PREPARING_REBALANCE) || group.allMembersJoined();
        }
    }

    /** For {@link InitialDelayedJoin}: its delay is over; wait once more if members came meanwhile, else complete. */
    void completeInitialJoin(GroupMetadata group, int delayMs, int remainingMs) {
        synchronized (group) {
            if (groups.closed() || !group.is(GroupState.PREPARING_REBALANCE)) {
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
            if (groups.closed() || !group.is(GroupState.PREPARING_REBALANCE)) {
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
                groups.maybeRemove(group);
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

    @Override
    public void syncGroup(SyncGroupRequestData request, Consumer<SyncGroupResponseData> callback) {
        if (!GroupRegistry.validGroupId(request.groupId())) {
            callback.accept(syncError(Errors.INVALID_GROUP_ID));
            return;
        }
        if (groups.closed()) {
            callback.accept(syncError(Errors.NOT_COORDINATOR));
            return;
        }
        groups.withGroup(request.groupId(), null, group -> {
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
            return groups.closed() || group.generationId() != generationId
                    || !(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))
                    || group.pendingSyncMembers().isEmpty();
        }
    }

    /** For {@link DelayedSync#onExpiration}: removes the members that never sent SyncGroup and rebalances. */
    void expirePendingSync(GroupMetadata group, int generationId) {
        synchronized (group) {
            if (groups.closed() || group.generationId() != generationId || group.pendingSyncMembers().isEmpty()
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

    @Override
    public Errors heartbeat(String groupId, String memberId, String groupInstanceId, int generationId) {
        if (!GroupRegistry.validGroupId(groupId)) {
            return Errors.INVALID_GROUP_ID;
        }
        if (groups.closed()) {
            return Errors.NOT_COORDINATOR;
        }
        return groups.withGroup(groupId, null, group -> {
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
            if (groups.closed() || group.is(GroupState.DEAD)) {
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
            if (groups.closed() || group.is(GroupState.DEAD)) {
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

    @Override
    public List<MemberResponse> leaveGroup(String groupId, List<MemberIdentity> leaving) {
        List<MemberResponse> noGroup = new ArrayList<>();
        if (!GroupRegistry.validGroupId(groupId) || groups.closed()) {
            Errors error = groups.closed() ? Errors.NOT_COORDINATOR : Errors.INVALID_GROUP_ID;
            leaving.forEach(m -> noGroup.add(memberResponse(m, error)));
            return noGroup;
        }
        return groups.withGroup(groupId, null, group -> {
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
            groups.maybeRemove(group);
        }
    }

    // ------------------------------------------------------------------ offsets

    /**
     * {@inheritDoc} Metadata past {@code offset.metadata.max.bytes} gets {@code OFFSET_METADATA_TOO_LARGE}. When
     * the memory budget's offsets share has no room for some offsets, groups without members are evicted to make
     * room (those created from {@code clientHost} first) and the commit is tried once more; a partition still
     * without room gets {@code COORDINATOR_NOT_AVAILABLE}, as Kafka answers a commit its offsets log could not take
     * (retriable: a Kafka consumer retries the commit).
     */
    @Override
    public OffsetResult commitOffsets(String groupId, String memberId, String groupInstanceId, int generationId, String clientId,
                                      String clientHost, Map<TopicPartition, CommittedOffset> offsets, Predicate<String> stillExists) {
        if (!GroupRegistry.validGroupId(groupId)) {
            return new OffsetResult(Errors.INVALID_GROUP_ID, Map.of());
        }
        if (groups.closed()) {
            return new OffsetResult(Errors.NOT_COORDINATOR, Map.of());
        }
        GroupCreator creator = generationId < 0 ? new GroupCreator(clientId, clientHost) : null;
        Commit commit = commitOnce(groupId, memberId, groupInstanceId, generationId, creator, offsets, stillExists);
        if (commit.refusedBytes() > 0 && groups.evictForBudget(MemoryBudget.Kind.OFFSETS, commit.refusedBytes(), clientHost, groupId)) {
            commit = commitOnce(groupId, memberId, groupInstanceId, generationId, creator, offsets, stillExists);
        }
        if (commit.refusedBytes() > 0) {
            long refused = commit.result().partitionErrors().values().stream().filter(e -> e == Errors.COORDINATOR_NOT_AVAILABLE).count();
            budget.refused(MemoryBudget.Kind.OFFSETS, refused + " of " + offsets.size() + " offsets committed to group '" + groupId
                    + "': COORDINATOR_NOT_AVAILABLE");
        }
        return commit.result();
    }

    /** A commit's answer, and the bytes of the offsets the memory budget had no room for. */
    private record Commit(OffsetResult result, long refusedBytes) {
    }

    private Commit commitOnce(String groupId, String memberId, String groupInstanceId, int generationId, GroupCreator creator,
                              Map<TopicPartition, CommittedOffset> offsets, Predicate<String> stillExists) {
        return groups.withGroup(groupId, creator, group -> {
            Errors invalid = validateCommit(group, memberId, groupInstanceId, generationId);
            if (invalid != Errors.NONE) {
                groups.maybeRemove(group);
                return new Commit(new OffsetResult(invalid, Map.of()), 0);
            }
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            long now = clock.getAsLong();
            long refusedBytes = 0;
            for (Map.Entry<TopicPartition, CommittedOffset> entry : offsets.entrySet()) {
                TopicPartition partition = entry.getKey();
                CommittedOffset offset = entry.getValue();
                String metadata = offset.metadata() == null ? "" : offset.metadata();
                if (metadata.length() > config.maxOffsetMetadataBytes()) {
                    errors.put(partition, Errors.OFFSET_METADATA_TOO_LARGE);
                } else {
                    CommittedOffset committed = new CommittedOffset(offset.offset(), offset.leaderEpoch(), metadata, now);
                    if (group.commit(partition, committed)) {
                        errors.put(partition, Errors.NONE);
                    } else {
                        errors.put(partition, Errors.COORDINATOR_NOT_AVAILABLE);
                        refusedBytes += GroupOffsets.heldBytes(committed);
                    }
                }
            }
            Set<String> gone = new HashSet<>();
            offsets.keySet().forEach(partition -> {
                if (!gone.contains(partition.topic()) && !stillExists.test(partition.topic())) {
                    gone.add(partition.topic());
                    group.offsets().removeTopic(partition.topic()); // deleted while this commit ran: the delete may not have seen it
                }
            });
            errors.replaceAll((partition, error) -> gone.contains(partition.topic()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : error);
            groups.maybeRemove(group);
            return new Commit(new OffsetResult(Errors.NONE, errors), refusedBytes);
        }, missing -> new Commit(new OffsetResult(missing ? Errors.ILLEGAL_GENERATION : Errors.COORDINATOR_NOT_AVAILABLE, Map.of()), 0));
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

    // ------------------------------------------------------------------ metrics

    /** Rebalances completed (generations started, empty ones included). */
    public long rebalances() {
        return rebalances.sum();
    }

    /** Members removed because their session timed out. */
    public long membersExpired() {
        return membersExpired.sum();
    }

    /** The metrics of the coordinator's purgatories, {@code rebalance} then {@code heartbeat}. */
    public List<PurgatoryMetrics> purgatoryMetrics() {
        return purgatories.metrics();
    }

    public PurgatoryMetrics heartbeatPurgatoryMetrics() {
        return heartbeatPurgatory.metrics();
    }

    /** Groups held now. */
    public int groupCount() {
        return groups.count();
    }

    // ------------------------------------------------------------------ shutdown

    /**
     * Answers every parked JoinGroup and SyncGroup with {@code NOT_COORDINATOR}, then closes the
     * purgatories; what they expire finds the coordinator closed and changes nothing. Requests from
     * now on are answered {@code NOT_COORDINATOR}. Idempotent.
     */
    @Override
    public void close() {
        groups.close();
        int answered = 0;
        for (GroupMetadata group : groups.all()) {
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
        purgatories.close();
    }

    // ------------------------------------------------------------------ helpers

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
