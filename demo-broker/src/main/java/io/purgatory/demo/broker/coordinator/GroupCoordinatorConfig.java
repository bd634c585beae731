package io.purgatory.demo.broker.coordinator;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.concurrent.TimeUnit;

/**
 * The group coordinator's settings, Kafka's names in brackets; the broker's come from its
 * {@link BrokerConfig} ({@link #of}), whose settings table (name, default, range) checked them, so
 * they are not checked again here. Immutable.
 *
 * @param minSessionTimeoutMs a JoinGroup with a shorter session timeout gets {@code INVALID_SESSION_TIMEOUT}
 *     ({@code group.min.session.timeout.ms})
 * @param maxSessionTimeoutMs a JoinGroup with a longer session timeout gets {@code INVALID_SESSION_TIMEOUT}
 *     ({@code group.max.session.timeout.ms})
 * @param initialRebalanceDelayMs how long the first rebalance of an empty group waits for more members,
 *     extended by each new member up to the rebalance timeout ({@code group.initial.rebalance.delay.ms})
 * @param maxSize members a group may have, pending ones (told {@code MEMBER_ID_REQUIRED}) included; past it
 *     {@code GROUP_MAX_SIZE_REACHED} ({@code group.max.size}, which in Kafka does not count pending members)
 * @param maxGroups groups the coordinator holds; past it a request that would create one gets
 *     {@code COORDINATOR_NOT_AVAILABLE} (Kafka has no such cap)
 * @param newMemberJoinTimeoutMs a new member whose first JoinGroup is still parked after this long is removed
 *     ({@code group.classic.new.member.join.timeout.ms} internally in Kafka: 5 minutes)
 * @param maxOffsetMetadataBytes an offset commit's metadata string may have this many characters; past it
 *     {@code OFFSET_METADATA_TOO_LARGE} ({@code offset.metadata.max.bytes})
 * @param offsetsRetentionMs how long an empty group keeps its offsets after it became empty, and a group that
 *     never had members each offset after its commit ({@code offsets.retention.minutes})
 * @param maxGroupsPerClient groups one client id at one address may have created that the coordinator still holds;
 *     past it a request that would create one evicts one of them without members or gets
 *     {@code COORDINATOR_NOT_AVAILABLE} (Kafka has no such cap)
 * @param maxGroupsPerAddress groups the clients at one address may have created that the coordinator still holds,
 *     whatever client ids they claim; past it as past {@code maxGroupsPerClient}
 */
public record GroupCoordinatorConfig(
        int minSessionTimeoutMs,
        int maxSessionTimeoutMs,
        int initialRebalanceDelayMs,
        int maxSize,
        int maxGroups,
        int newMemberJoinTimeoutMs,
        int maxOffsetMetadataBytes,
        long offsetsRetentionMs,
        int maxGroupsPerClient,
        int maxGroupsPerAddress) {

    /** Kafka's new member join timeout: 5 minutes. */
    static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;
    /** Kafka's default {@code offset.metadata.max.bytes}. */
    static final int MAX_OFFSET_METADATA_BYTES = 4_096;

    /** The broker's group settings, with Kafka's new member join timeout and offset metadata limit. */
    public static GroupCoordinatorConfig of(BrokerConfig broker) {
        return new GroupCoordinatorConfig(broker.groupMinSessionTimeoutMs(), broker.groupMaxSessionTimeoutMs(), broker.groupInitialRebalanceDelayMs(),
                broker.groupMaxSize(), broker.maxGroups(), NEW_MEMBER_JOIN_TIMEOUT_MS, MAX_OFFSET_METADATA_BYTES,
                TimeUnit.MINUTES.toMillis(broker.offsetsRetentionMinutes()), broker.maxGroupsPerClient(),
                broker.maxGroupsPerAddress());
    }
}
