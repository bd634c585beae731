package io.purgatory.demo.client;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * The set-up before the load, one request at a time: {@code ApiVersions} picks, for Metadata and
 * Produce (or, for a consumer, Fetch and ListOffsets), the highest version both sides speak;
 * {@code Metadata} finds the topic's id and partitions; a consumer's {@code ListOffsets} where to
 * start reading. Each request waits at most the given time for its response.
 *
 * <p>If the broker answers {@code ApiVersions} with {@code UNSUPPORTED_VERSION} (our version is newer
 * than its), the request is sent once more in the newest version it lists, as Kafka clients do.
 *
 * <p>Stateless; the static methods are thread-safe and block the calling thread, which must not be
 * the connection's event loop.
 */
final class Handshake {
    static final String CLIENT_SOFTWARE_NAME = "purgatory-demo-client";
    static final String CLIENT_SOFTWARE_VERSION = "0.1.0";
    /** Metadata v4 is the first that can say "do not create the topic". */
    static final short MIN_METADATA_VERSION = 4;
    /** Produce v13 (KIP-516) addresses topics by id instead of name. */
    static final short FIRST_PRODUCE_VERSION_BY_TOPIC_ID = 13;
    /** Fetch v13 (KIP-516) addresses topics by id instead of name. */
    static final short FIRST_FETCH_VERSION_BY_TOPIC_ID = 13;

    /** What the set-up learnt: the versions to speak and the topic to produce to. */
    record Result(short metadataVersion, short produceVersion, TopicMetadata topic) {
        /** Whether produce requests name the topic by id (v13+) rather than by name. */
        boolean produceByTopicId() {
            return produceVersion >= FIRST_PRODUCE_VERSION_BY_TOPIC_ID;
        }
    }

    /**
     * What a consumer's set-up learnt: the versions to speak, the topic, and the offset each
     * partition's reading starts at (by partition index).
     */
    record ConsumerSetup(short fetchVersion, short listOffsetsVersion, TopicMetadata topic, Map<Integer, Long> startOffsets) {
        ConsumerSetup {
            startOffsets = Collections.unmodifiableMap(new TreeMap<>(startOffsets));
        }

        /** Whether fetch requests name the topic by id (v13+) rather than by name. */
        boolean fetchByTopicId() {
            return fetchVersion >= FIRST_FETCH_VERSION_BY_TOPIC_ID;
        }
    }

    /** A topic as Metadata describes it: its id (zero before Metadata v10) and partition indexes. */
    record TopicMetadata(String name, Uuid id, List<Integer> partitions) {
        TopicMetadata {
            partitions = List.copyOf(partitions);
        }
    }

    private Handshake() {
    }

    /**
     * Runs ApiVersions then Metadata for {@code topic}.
     *
     * @throws ClientException with a one-line reason: no common version, no such topic, no answer,
     *     or the connection closed
     */
    static Result perform(KafkaConnection connection, String topic, long timeoutMs) throws ClientException, InterruptedException {
        Endpoint broker = connection.endpoint();
        ApiVersionsResponseData versions = apiVersions(connection, timeoutMs);
        short metadataVersion = negotiate(versions, ApiKeys.METADATA, MIN_METADATA_VERSION, broker);
        short produceVersion = negotiate(versions, ApiKeys.PRODUCE, ApiKeys.PRODUCE.oldestVersion(), broker);
        TopicMetadata metadata = metadata(connection, topic, metadataVersion, timeoutMs);
        if (produceVersion >= FIRST_PRODUCE_VERSION_BY_TOPIC_ID && Uuid.ZERO_UUID.equals(metadata.id())) {
            throw new ClientException("Produce v" + produceVersion + " addresses topics by id, but Metadata v" + metadataVersion
                    + " from " + broker + " gave topic '" + topic + "' no id");
        }
        return new Result(metadataVersion, produceVersion, metadata);
    }

    /**
     * Runs ApiVersions, Metadata for {@code topic}, and ListOffsets for where each partition's
     * reading starts: its log start ({@code fromEarliest}) or its high watermark.
     *
     * @throws ClientException with a one-line reason: no Fetch or ListOffsets, no such topic, a
     *     partition's offset not found, no answer, or the connection closed
     */
    static ConsumerSetup performForConsumer(KafkaConnection connection, String topic, boolean fromEarliest, long timeoutMs)
            throws ClientException, InterruptedException {
        Endpoint broker = connection.endpoint();
        ApiVersionsResponseData versions = apiVersions(connection, timeoutMs);
        short metadataVersion = negotiate(versions, ApiKeys.METADATA, MIN_METADATA_VERSION, broker);
        short fetchVersion = negotiate(versions, ApiKeys.FETCH, ApiKeys.FETCH.oldestVersion(), broker);
        short listOffsetsVersion = negotiate(versions, ApiKeys.LIST_OFFSETS, ApiKeys.LIST_OFFSETS.oldestVersion(), broker);
        TopicMetadata metadata = metadata(connection, topic, metadataVersion, timeoutMs);
        if (fetchVersion >= FIRST_FETCH_VERSION_BY_TOPIC_ID && Uuid.ZERO_UUID.equals(metadata.id())) {
            throw new ClientException("Fetch v" + fetchVersion + " addresses topics by id, but Metadata v" + metadataVersion
                    + " from " + broker + " gave topic '" + topic + "' no id");
        }
        long timestamp = fromEarliest ? ListOffsetsRequest.EARLIEST_TIMESTAMP : ListOffsetsRequest.LATEST_TIMESTAMP;
        ListOffsetsResponse offsets = (ListOffsetsResponse) call(connection,
                listOffsets(topic, metadata.partitions(), timestamp, listOffsetsVersion), timeoutMs);
        Map<Integer, Long> startOffsets = new TreeMap<>();
        for (ListOffsetsTopicResponse topicResponse : offsets.topics()) {
            for (ListOffsetsPartitionResponse partition : topicResponse.partitions()) {
                Errors error = Errors.forCode(partition.errorCode());
                if (error != Errors.NONE || partition.offset() < 0) {
                    throw new ClientException("ListOffsets for " + topic + "-" + partition.partitionIndex() + " from " + broker
                            + " failed: " + error.name());
                }
                startOffsets.put(partition.partitionIndex(), partition.offset());
            }
        }
        if (!startOffsets.keySet().containsAll(metadata.partitions())) {
            throw new ClientException("the ListOffsets response from " + broker + " misses partitions of topic '" + topic + "'");
        }
        return new ConsumerSetup(fetchVersion, listOffsetsVersion, metadata, startOffsets);
    }

    /** A consumer's ListOffsets request for {@code timestamp} (or EARLIEST/LATEST) on each of {@code partitions}. */
    static ListOffsetsRequest listOffsets(String topic, List<Integer> partitions, long timestamp, short version) {
        List<ListOffsetsPartition> wanted = partitions.stream()
                .map(partition -> new ListOffsetsPartition().setPartitionIndex(partition).setTimestamp(timestamp))
                .toList();
        return ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(List.of(new ListOffsetsTopic().setName(topic).setPartitions(wanted)))
                .build(version);
    }

    /**
     * The highest version of {@code api} that both this client (from {@code ourOldest} up to
     * kafka-clients' latest) and the broker speak.
     */
    static short negotiate(ApiVersionsResponseData brokerVersions, ApiKeys api, short ourOldest, Endpoint broker) throws ClientException {
        ApiVersion theirs = brokerVersions.apiKeys().find(api.id);
        if (theirs == null) {
            throw new ClientException(broker + " does not support " + api.name + " (its ApiVersions response does not list it)");
        }
        short ourLatest = api.latestVersion();
        short version = (short) Math.min(ourLatest, theirs.maxVersion());
        if (version < Math.max(ourOldest, theirs.minVersion())) {
            throw new ClientException("no common " + api.name + " version with " + broker + ": it speaks v" + theirs.minVersion()
                    + "-v" + theirs.maxVersion() + ", this client v" + ourOldest + "-v" + ourLatest);
        }
        return version;
    }

    private static ApiVersionsResponseData apiVersions(KafkaConnection connection, long timeoutMs) throws ClientException, InterruptedException {
        ApiVersionsRequestData data = new ApiVersionsRequestData()
                .setClientSoftwareName(CLIENT_SOFTWARE_NAME)
                .setClientSoftwareVersion(CLIENT_SOFTWARE_VERSION);
        short version = ApiKeys.API_VERSIONS.latestVersion();
        for (int attempt = 1; ; attempt++) {
            ApiVersionsRequest request = new ApiVersionsRequest.Builder(data, version, version).build(version);
            ApiVersionsResponseData response = ((ApiVersionsResponse) call(connection, request, timeoutMs)).data();
            Errors error = Errors.forCode(response.errorCode());
            if (error == Errors.NONE) {
                return response;
            }
            ApiVersion theirs = response.apiKeys().find(ApiKeys.API_VERSIONS.id);
            if (error == Errors.UNSUPPORTED_VERSION && attempt == 1 && theirs != null && theirs.maxVersion() < version) {
                version = theirs.maxVersion();
                continue;
            }
            throw new ClientException("ApiVersions v" + version + " to " + connection.endpoint() + " failed: " + error.name());
        }
    }

    private static TopicMetadata metadata(KafkaConnection connection, String topic, short version, long timeoutMs)
            throws ClientException, InterruptedException {
        Endpoint broker = connection.endpoint();
        final MetadataRequest request;
        try {
            request = new MetadataRequest.Builder(List.of(topic), false).build(version);
        } catch (UnsupportedVersionException e) {
            throw new ClientException("cannot build Metadata v" + version + " for " + broker + ": " + e.getMessage(), e);
        }
        MetadataResponse response = (MetadataResponse) call(connection, request, timeoutMs);
        MetadataResponseTopic described = response.data().topics().find(topic);
        if (described == null) {
            throw new ClientException("the Metadata response from " + broker + " does not mention topic '" + topic + "'");
        }
        Errors error = Errors.forCode(described.errorCode());
        if (error == Errors.UNKNOWN_TOPIC_OR_PARTITION) {
            throw new ClientException("topic '" + topic + "' does not exist on " + broker + " (" + error.name() + ")");
        }
        if (error != Errors.NONE) {
            throw new ClientException("Metadata for topic '" + topic + "' from " + broker + " failed: " + error.name());
        }
        if (described.partitions().isEmpty()) {
            throw new ClientException("topic '" + topic + "' on " + broker + " has no partitions");
        }
        List<Integer> partitions = described.partitions().stream()
                .map(MetadataResponsePartition::partitionIndex)
                .sorted()
                .toList();
        return new TopicMetadata(topic, described.topicId() != null ? described.topicId() : Uuid.ZERO_UUID, partitions);
    }

    private static AbstractResponse call(KafkaConnection connection, AbstractRequest request, long timeoutMs)
            throws ClientException, InterruptedException {
        String what = request.apiKey().name;
        CompletableFuture<AbstractResponse> response = connection.send(request, true);
        try {
            return response.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ClientException("no " + what + " response from " + connection.endpoint() + " within " + timeoutMs + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KafkaConnection.NotKafkaException) {
                throw new ClientException(connection.endpoint() + " is not a Kafka broker: " + cause.getMessage(), cause);
            }
            if (cause instanceof KafkaConnection.ClosedException) {
                throw new ClientException("lost the connection to " + connection.endpoint() + " during " + what + " (" + cause.getMessage() + ")",
                        cause);
            }
            throw new ClientException(what + " to " + connection.endpoint() + " failed: " + cause, cause);
        }
    }
}
