package io.purgatory.demo.broker.coordinator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The groups the coordinator holds, by id: found, created within the caps
 * ({@link GroupCoordinatorConfig#maxGroups()}, {@link GroupCoordinatorConfig#maxGroupsPerClient()}
 * per creating client id at one address, {@link GroupCoordinatorConfig#maxGroupsPerAddress()} per
 * creating address: see {@link GroupCreator}), and removed once empty and holding nothing. A full cap evicts the group
 * without members that has been so the longest (of those the full cap counts), offsets and all, to
 * make room: so groups that hold only offsets (simple groups, or consumer groups whose members have
 * all gone) cannot keep new groups out for the offsets' retention period, and a client claiming
 * another's client id from another address counts against its own address only; only groups with
 * members make a cap refuse. A group also counts {@link #heldBytes(String)} in the broker's
 * {@link MemoryBudget} from its creation to its removal; when the groups' share has no room, groups
 * without members are evicted the same way ({@link #evictForBudget}: the requesting address's own
 * first), and only when none is left is the request refused as a full cap refuses it. Each group's offsets are
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
    /** The most groups one request evicts to make room in the memory budget: a scan of the groups each. */
    private static final int MAX_BUDGET_EVICTIONS = 16;
    /** Heap a group takes beyond its id, members aside: its state, maps, offsets holder and registry entries, rounded up. */
    static final int GROUP_OVERHEAD_BYTES = 1_024;

    private final GroupCoordinatorConfig config;
    private final LongSupplier clock;
    private final OffsetStore offsetStore;
    private final DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory;
    private final MemoryBudget budget;
    private final ConcurrentHashMap<String, GroupMetadata> groups = new ConcurrentHashMap<>();
    private final Object groupsLock = new Object();
    /** Client id at an address to the groups it created that are still held. */
    @GuardedBy("groupsLock")
    private final Map<GroupCreator, Integer> groupsByCreator = new HashMap<>();
    /** Address to the groups its clients created that are still held. */
    @GuardedBy("groupsLock")
    private final Map<String, Integer> groupsByHost = new HashMap<>();

    /** The caps on creating groups, each with its option and the groups it counts. */
    private enum Cap {
        ALL("--max-groups"),
        ADDRESS("--max-groups-per-address"),
        CLIENT("--max-groups-per-client");

        private final String option;

        Cap(String option) {
            this.option = option;
        }

        /** Whether {@code group} counts against this cap for {@code creator}. */
        boolean counts(GroupMetadata group, GroupCreator creator) {
            return switch (this) {
                case ALL -> true;
                case ADDRESS -> group.creator().host().equals(creator.host());
                case CLIENT -> group.creator().equals(creator);
            };
        }
    }
    private final ThrottledWarning groupCapWarning = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private volatile boolean closed;

    /**
     * @param heartbeatPurgatory where a removed group's pending members' sessions are told it is gone
     * @param budget where groups and their offsets count their memory
     */
    GroupRegistry(GroupCoordinatorConfig config, LongSupplier clock, DelayedOperationPurgatory<DelayedHeartbeat> heartbeatPurgatory,
                  MemoryBudget budget) {
        this.config = config;
        this.clock = clock;
        this.budget = budget;
        this.offsetStore = new OffsetStore(config.offsetsRetentionMs(), budget);
        this.heartbeatPurgatory = heartbeatPurgatory;
    }

    /** What a group counts in the memory budget while it is held: two bytes per id character and its objects. */
    static long heldBytes(String groupId) {
        return GROUP_OVERHEAD_BYTES + 2L * groupId.length();
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
     * (a cap is full: {@link GroupCoordinatorConfig#maxGroups()}, the creator's address has created
     * {@link GroupCoordinatorConfig#maxGroupsPerAddress()} groups still held, or its client id at that
     * address {@link GroupCoordinatorConfig#maxGroupsPerClient()}; and no group without members
     * counted by that cap can be evicted; or the memory budget has no room), {@code absent} runs
     * instead, told whether the group was simply missing (true) or refused (false).
     *
     * @param creator the client id and address of the request, when it may create the group; null when it may not
     */
    <R> R withGroup(String groupId, GroupCreator creator, Function<GroupMetadata, R> action, Function<Boolean, R> absent) {
        boolean evicted = false; // at most one eviction per call
        while (true) {
            GroupMetadata group = groups.get(groupId);
            if (group == null && creator != null) {
                Cap full = null;
                synchronized (groupsLock) {
                    group = groups.get(groupId);
                    if (group == null) {
                        full = fullCap(creator);
                    }
                }
                if (full != null) {
                    if (!evicted && evictOldestMemberless(full, creator)) {
                        evicted = true;
                        continue;
                    }
                    groupCapWarning.warn(full == Cap.ALL
                            ? "refusing new groups: the " + config.maxGroups() + " held (--max-groups) all have members"
                            : "refusing a new group to " + creator + ": the groups it created (" + full.option + ") all have members");
                    return absent.apply(false);
                }
                boolean noRoom = false;
                synchronized (groupsLock) {
                    group = groups.get(groupId);
                    if (group == null) {
                        if (fullCap(creator) != null) {
                            continue; // filled meanwhile: evict (once) or refuse, as above
                        }
                        noRoom = !budget.tryCharge(MemoryBudget.Kind.GROUPS, heldBytes(groupId));
                        if (!noRoom) {
                            groupsByCreator.merge(creator, 1, Integer::sum);
                            groupsByHost.merge(creator.host(), 1, Integer::sum);
                            group = new GroupMetadata(groupId, clock.getAsLong(), offsetStore.newGroup(groupId), creator);
                            groups.put(groupId, group);
                        }
                    }
                }
                if (noRoom) {
                    if (!evicted && evictForBudget(MemoryBudget.Kind.GROUPS, heldBytes(groupId), creator.host(), groupId)) {
                        evicted = true;
                        continue;
                    }
                    budget.refused(MemoryBudget.Kind.GROUPS, "a new group for " + creator + ": COORDINATOR_NOT_AVAILABLE");
                    return absent.apply(false);
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

    /** The first cap that a new group of {@code creator} would pass, or null when none. */
    @GuardedBy("groupsLock")
    private Cap fullCap(GroupCreator creator) {
        if (groups.size() >= config.maxGroups()) {
            return Cap.ALL;
        }
        if (groupsByHost.getOrDefault(creator.host(), 0) >= config.maxGroupsPerAddress()) {
            return Cap.ADDRESS;
        }
        return groupsByCreator.getOrDefault(creator, 0) >= config.maxGroupsPerClient() ? Cap.CLIENT : null;
    }

    /**
     * Makes room under a full cap: removes, with its offsets, the group without members that has been
     * so the longest among those the cap counts for {@code creator}, and logs it (throttled). Groups
     * with members are never evicted. Takes each group's monitor in turn, never {@code groupsLock}
     * around them.
     *
     * @return false when every group counted by the cap has members
     */
    private boolean evictOldestMemberless(Cap cap, GroupCreator creator) {
        return evictOldestMemberless(group -> cap.counts(group, creator), cap.option + " is full");
    }

    /**
     * Removes, with its offsets, the group without members that has been so the longest among the
     * {@code eligible}, and logs it (throttled) with {@code why}. Takes each group's monitor in turn;
     * the caller holds none.
     *
     * @return false when every eligible group has members
     */
    private boolean evictOldestMemberless(Predicate<GroupMetadata> eligible, String why) {
        GroupMetadata oldest = null;
        long oldestSince = Long.MAX_VALUE;
        for (GroupMetadata group : groups.values()) {
            if (!eligible.test(group)) {
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
            groupCapWarning.warn(why + ": evicted group '" + oldest.groupId() + "' (no members since " + oldestSince
                    + ", " + offsets + " committed offsets) to make room");
        }
        return true;
    }

    /**
     * Makes room for {@code bytes} more of {@code kind} (groups or offsets) in the memory budget by
     * evicting groups without members, as a full cap does: the oldest of those created from
     * {@code host} first (a client flooding the budget evicts its own), then the oldest of any, never
     * {@code except} (the group the room is for), at most {@value #MAX_BUDGET_EVICTIONS} per call.
     * The caller holds no group's monitor.
     *
     * @return whether {@code bytes} of {@code kind} fit now
     */
    boolean evictForBudget(MemoryBudget.Kind kind, long bytes, String host, String except) {
        String why = "memory budget: the " + kind.label() + " share is full";
        for (int evictions = 0; !budget.fits(kind, bytes) && evictions < MAX_BUDGET_EVICTIONS; evictions++) {
            boolean evicted = evictOldestMemberless(group -> !group.groupId().equals(except) && group.creator().host().equals(host), why)
                    || evictOldestMemberless(group -> !group.groupId().equals(except), why);
            if (!evicted) {
                break;
            }
        }
        return budget.fits(kind, bytes);
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
                groupsByCreator.computeIfPresent(group.creator(), (client, created) -> created > 1 ? created - 1 : null);
                groupsByHost.computeIfPresent(group.creator().host(), (host, created) -> created > 1 ? created - 1 : null);
                budget.release(MemoryBudget.Kind.GROUPS, heldBytes(group.groupId()));
            }
        }
        for (String pending : List.copyOf(group.pendingMembers())) {
            group.remove(pending);
            heartbeatPurgatory.checkAndComplete(new GroupKeys.Member(group.groupId(), pending));
        }
    }
}
