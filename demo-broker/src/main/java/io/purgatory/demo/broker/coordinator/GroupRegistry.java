package io.purgatory.demo.broker.coordinator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The groups the coordinator holds, by id: found, created within the caps
 * ({@link GroupCoordinatorConfig#maxGroups()}, {@link GroupCoordinatorConfig#maxGroupsPerClient()}
 * per creating client id), and removed once empty and holding nothing. A full cap evicts the group
 * without members that has been so the longest (of the creator's groups when the per-client cap is
 * full), offsets and all, to make room: so groups that hold only offsets (simple groups, or consumer
 * groups whose members have all gone) cannot keep new groups out for the offsets' retention
 * period, and a client claiming another's client id cannot lock it out; only groups with members
 * make a cap refuse. Each group's offsets are
 * kept in the {@link OffsetStore}. Shared by the state machine ({@link GroupCoordinator}) and the
 * admin queries ({@link GroupAdmin}), which both reach a group through {@link #withGroup}; it also
 * holds whether the coordinator is closed.
 *
 * <p>Thread-safe. The map is a {@link ConcurrentHashMap} whose additions and removals happen under
 * {@code groupsLock} (taken after a group's monitor, never before); {@code closed} is volatile.
 */
final class GroupRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(GroupRegistry.class);
    /** A refused group creation is logged at most once per this period, with a count of the others. */
    private static final long WARNING_PERIOD_MS = 10_000;

    private final GroupCoordinatorConfig config;
    private final LongSupplier clock;
    private final OffsetStore offsetStore;
    private final DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory;
    private final ConcurrentHashMap<String, GroupMetadata> groups = new ConcurrentHashMap<>();
    private final Object groupsLock = new Object();
    /** Client id to the groups it created that are still held. */
    @GuardedBy("groupsLock")
    private final Map<String, Integer> groupsByCreator = new HashMap<>();
    private final ThrottledWarning groupCapWarning = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private volatile boolean closed;

    /** @param heartbeatPurgatory where a removed group's pending members' sessions are told it is gone */
    GroupRegistry(GroupCoordinatorConfig config, LongSupplier clock, DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory) {
        this.config = config;
        this.clock = clock;
        this.offsetStore = new OffsetStore(config.offsetsRetentionMs());
        this.heartbeatPurgatory = heartbeatPurgatory;
    }

    /** A group id the coordinator accepts: not empty, at most {@value GroupCoordinator#MAX_GROUP_ID_LENGTH} characters. */
    static boolean validGroupId(String groupId) {
        return groupId != null && !groupId.isEmpty() && groupId.length() <= GroupCoordinator.MAX_GROUP_ID_LENGTH;
    }

    boolean closed() {
        return closed;
    }

    /** From now on every request is answered {@code NOT_COORDINATOR}; what reads the groups changes nothing. */
    void close() {
        closed = true;
    }

    /** The groups now, dead ones (removed meanwhile) possibly among them: check under each one's monitor. */
    Collection<GroupMetadata> all() {
        return groups.values();
    }

    GroupMetadata get(String groupId) {
        return groups.get(groupId);
    }

    int count() {
        return groups.size();
    }

    OffsetStore offsetStore() {
        return offsetStore;
    }

    /**
     * Runs {@code action} on the group under its monitor; a group found dead (removed meanwhile) is
     * looked up again. When there is no group and {@code creator} is null, or none may be created
     * (the cap, or the creator's client id has created {@link GroupCoordinatorConfig#maxGroupsPerClient()}
     * groups still held), {@code absent} runs instead, told whether the group was simply missing
     * (true) or refused (false).
     *
     * @param creator the client id of the request, when it may create the group; null when it may not
     */
    <R> R withGroup(String groupId, String creator, Function<GroupMetadata, R> action, Function<Boolean, R> absent) {
        boolean evicted = false; // at most one eviction per call
        while (true) {
            GroupMetadata group = groups.get(groupId);
            if (group == null && creator != null) {
                String full = null; // the cap that is full, if one is
                synchronized (groupsLock) {
                    group = groups.get(groupId);
                    if (group == null) {
                        int created = groupsByCreator.getOrDefault(creator, 0);
                        if (groups.size() >= config.maxGroups()) {
                            full = "--max-groups";
                        } else if (created >= config.maxGroupsPerClient()) {
                            full = "--max-groups-per-client";
                        }
                    }
                }
                if (full != null) {
                    boolean ofCreator = full.equals("--max-groups-per-client");
                    if (!evicted && evictOldestMemberless(ofCreator ? creator : null, full)) {
                        evicted = true;
                        continue;
                    }
                    groupCapWarning.warn(ofCreator
                            ? "refusing a new group to client id '" + creator + "': its " + config.maxGroupsPerClient()
                                    + " groups (--max-groups-per-client) all have members"
                            : "refusing new groups: the " + config.maxGroups() + " held (--max-groups) all have members");
                    return absent.apply(false);
                }
                synchronized (groupsLock) {
                    group = groups.get(groupId);
                    if (group == null) {
                        int created = groupsByCreator.getOrDefault(creator, 0);
                        if (groups.size() >= config.maxGroups() || created >= config.maxGroupsPerClient()) {
                            continue; // filled meanwhile: evict (once) or refuse, as above
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

    /**
     * Makes room under a full cap: removes, with its offsets, the group without members that has been
     * so the longest (of {@code creator}'s groups, or of all when null), and logs it (throttled).
     * Groups with members are never evicted. Takes each group's monitor in turn, never
     * {@code groupsLock} around them.
     *
     * @return false when every group counted by the cap has members
     */
    private boolean evictOldestMemberless(String creator, String cap) {
        GroupMetadata oldest = null;
        long oldestSince = Long.MAX_VALUE;
        for (GroupMetadata group : groups.values()) {
            if (creator != null && !creator.equals(group.creatorClientId())) {
                continue;
            }
            synchronized (group) {
                if (group.is(GroupState.EMPTY) && group.stateSinceMs() < oldestSince) {
                    oldest = group;
                    oldestSince = group.stateSinceMs();
                }
            }
        }
        if (oldest == null) {
            return false;
        }
        synchronized (oldest) {
            if (!oldest.is(GroupState.EMPTY)) {
                return true; // it got a member meanwhile: the caller looks again
            }
            int offsets = oldest.offsets().size();
            remove(oldest);
            groupCapWarning.warn(cap + " is full: evicted group '" + oldest.groupId() + "' (no members since " + oldestSince
                    + ", " + offsets + " committed offsets) to make room for a new one");
        }
        return true;
    }

    /** Removes an empty group that holds nothing (no member, no offset); under its monitor. */
    void maybeRemove(GroupMetadata group) {
        if (group.isDisposable()) {
            remove(group);
        }
    }

    /** Removes the group with its offsets: it is dead from now on; its pending members' sessions see it so. Under its monitor. */
    void remove(GroupMetadata group) {
        group.transitionTo(GroupState.DEAD, clock.getAsLong());
        group.offsets().clear();
        synchronized (groupsLock) {
            if (groups.remove(group.groupId(), group)) {
                groupsByCreator.computeIfPresent(group.creatorClientId(), (client, created) -> created > 1 ? created - 1 : null);
            }
        }
        for (String pending : List.copyOf(group.pendingMembers())) {
            group.remove(pending);
            heartbeatPurgatory.checkAndComplete(new GroupKeys.Member(group.groupId(), pending));
        }
    }
}
