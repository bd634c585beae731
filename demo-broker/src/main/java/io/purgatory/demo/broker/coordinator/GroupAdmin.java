package io.purgatory.demo.broker.coordinator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What admin clients and the broker ask of the groups, apart from the members' own requests
 * ({@link GroupMembership}): ListGroups, DescribeGroups (and every group described, for the
 * dashboard), DeleteGroups, OffsetFetch and OffsetDelete, as Kafka's classic coordinator answers
 * them; and the offsets' housekeeping, {@link #expireOffsets} (Kafka's
 * {@code offsets.retention.minutes}, run periodically by the broker) and {@link #topicDeleted}.
 * None of these moves a group's state machine: the most they do is remove an empty group (one
 * deleted, or left without offsets: {@link GroupRegistry#maybeRemove}). What they return is a
 * copy, read under the group's monitor.
 *
 * <p>Thread-safe: each group is read and changed under its monitor, through the
 * {@link GroupRegistry} it shares with the {@link GroupCoordinator}.
 */
public final class GroupAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(GroupAdmin.class);
    private static final byte[] NO_BYTES = new byte[0];

    private final GroupRegistry groups;
    private final LongSupplier clock;

    GroupAdmin(GroupRegistry groups, LongSupplier clock) {
        this.groups = groups;
        this.clock = clock;
    }

    // ------------------------------------------------------------------ groups: list, describe, delete

    /** The groups in the given states (any when empty), as ListGroups and DescribeGroups see them. */
    public List<GroupSummary> listGroups(Set<GroupState> states) {
        return summaries(group -> states.isEmpty() || states.contains(group.state()), false);
    }

    /** One group with its members and offsets, or null when the coordinator has no such group. */
    public GroupSummary describeGroup(String groupId) {
        if (!GroupRegistry.validGroupId(groupId)) {
            return null;
        }
        return groups.withGroup(groupId, null, group -> summary(group, true), missing -> null);
    }

    /** Every group, described, for the dashboard and /metrics. */
    public List<GroupSummary> describeGroups() {
        return summaries(group -> true, true);
    }

    /** The live groups that {@code wanted} accepts, each read under its monitor. */
    private List<GroupSummary> summaries(Predicate<GroupMetadata> wanted, boolean withMembers) {
        List<GroupSummary> list = new ArrayList<>();
        for (GroupMetadata group : groups.all()) {
            synchronized (group) {
                if (!group.is(GroupState.DEAD) && wanted.test(group)) {
                    list.add(summary(group, withMembers));
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
            if (!GroupRegistry.validGroupId(groupId)) {
                result.put(groupId, Errors.INVALID_GROUP_ID);
            } else if (groups.closed()) {
                result.put(groupId, Errors.NOT_COORDINATOR);
            } else {
                result.put(groupId, groups.withGroup(groupId, null, group -> {
                    if (!group.is(GroupState.EMPTY)) {
                        return Errors.NON_EMPTY_GROUP;
                    }
                    groups.remove(group);
                    return Errors.NONE;
                }, missing -> Errors.GROUP_ID_NOT_FOUND));
            }
        }
        return result;
    }

    // ------------------------------------------------------------------ offsets: fetch, delete

    /**
     * The group's committed offsets for {@code partitions}, or all of them when null; a partition
     * with none is absent. An unknown group has none.
     */
    public Map<TopicPartition, CommittedOffset> fetchOffsets(String groupId, Collection<TopicPartition> partitions) {
        if (!GroupRegistry.validGroupId(groupId)) {
            return Map.of();
        }
        return groups.withGroup(groupId, null, group -> {
            if (partitions == null) {
                return group.offsets().snapshot();
            }
            Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
            partitions.forEach(p -> {
                CommittedOffset offset = group.offsets().get(p);
                if (offset != null) {
                    result.put(p, offset);
                }
            });
            return result;
        }, missing -> Map.of());
    }

    /**
     * An OffsetDelete: {@code GROUP_ID_NOT_FOUND} for an unknown group, {@code NON_EMPTY_GROUP} for a
     * group with members that is not a consumer group; in a consumer group with members, the
     * partitions of topics it subscribes to get {@code GROUP_SUBSCRIBED_TO_TOPIC}.
     */
    public OffsetResult deleteOffsets(String groupId, Collection<TopicPartition> partitions) {
        if (!GroupRegistry.validGroupId(groupId)) {
            return new OffsetResult(Errors.INVALID_GROUP_ID, Map.of());
        }
        if (groups.closed()) {
            return new OffsetResult(Errors.NOT_COORDINATOR, Map.of());
        }
        return groups.withGroup(groupId, null, group -> {
            boolean hasMembers = !group.is(GroupState.EMPTY);
            if (hasMembers && !GroupCoordinator.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
                return new OffsetResult(Errors.NON_EMPTY_GROUP, Map.of());
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
            groups.maybeRemove(group);
            return new OffsetResult(Errors.NONE, errors);
        }, missing -> new OffsetResult(Errors.GROUP_ID_NOT_FOUND, Map.of()));
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
        for (GroupMetadata group : groups.all()) {
            synchronized (group) {
                if (groups.closed() || group.is(GroupState.DEAD)) {
                    continue;
                }
                int dropped = groups.offsetStore().expire(group, now);
                if (dropped > 0) {
                    expired += dropped;
                    if (group.isDisposable()) {
                        groups.remove(group);
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
        for (String groupId : groups.offsetStore().groupsHolding(topic)) {
            GroupMetadata group = groups.get(groupId);
            if (group == null) {
                continue;
            }
            synchronized (group) {
                if (!group.is(GroupState.DEAD)) {
                    dropped += group.offsets().removeTopic(topic);
                    groups.maybeRemove(group);
                }
            }
        }
        return dropped;
    }

    /** A read-only view of {@code bytes}, for a {@link GroupSummary} that leaves the group's lock. */
    private static ByteBuffer readOnly(byte[] bytes) {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }
}
