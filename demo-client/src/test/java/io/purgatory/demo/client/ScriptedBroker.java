package io.purgatory.demo.client;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A Kafka broker for tests that misbehave on purpose, on blocking sockets, one connection at a
 * time: answers ApiVersions (Produce up to a chosen version) and Metadata for topic {@code demo}
 * with one partition, and Produce as scripted. Records every produce request it reads.
 *
 * <p>Thread-safe: one daemon thread serves; {@link #produces} is a concurrent list.
 */
final class ScriptedBroker implements AutoCloseable {
    static final String TOPIC = "demo";

    /** What the broker does with a produce request. */
    enum Produce { ANSWER, IGNORE, CLOSE_CONNECTION }

    final Uuid topicId = Uuid.randomUuid();
    final List<ProduceRequest> produces = new CopyOnWriteArrayList<>();
    private final short maxProduceVersion;
    private final Produce behaviour;
    private final Errors produceError;
    private final ServerSocket server;

    ScriptedBroker(short maxProduceVersion, Produce behaviour, Errors produceError) throws IOException {
        this.maxProduceVersion = maxProduceVersion;
        this.behaviour = behaviour;
        this.produceError = produceError;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(this::serve, "scripted-broker");
        thread.setDaemon(true);
        thread.start();
    }

    String bootstrap() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                serve(socket);
            } catch (IOException e) {
                // closed, or the client went away
            }
        }
    }

    private void serve(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        while (true) {
            final byte[] frame;
            try {
                frame = new byte[in.readInt()];
            } catch (EOFException e) {
                return;
            }
            in.readFully(frame);
            ByteBuffer buffer = ByteBuffer.wrap(frame);
            RequestHeader header = RequestHeader.parse(buffer);
            AbstractRequest request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(), new ByteBufferAccessor(buffer)).request;
            switch (header.apiKey()) {
                case API_VERSIONS -> respond(out, header, apiVersions());
                case METADATA -> respond(out, header, metadata(header.apiVersion()));
                case PRODUCE -> {
                    ProduceRequest produce = (ProduceRequest) request;
                    produces.add(produce);
                    if (behaviour == Produce.CLOSE_CONNECTION) {
                        return;
                    }
                    if (behaviour == Produce.ANSWER && produce.acks() != 0) {
                        respond(out, header, produceResponse(produce));
                    }
                }
                default -> throw new IllegalStateException("unexpected " + header.apiKey());
            }
        }
    }

    private ApiVersionsResponse apiVersions() {
        ApiVersionsResponseData.ApiVersionCollection versions = new ApiVersionsResponseData.ApiVersionCollection();
        versions.add(ApiVersionsResponse.toApiVersion(ApiKeys.API_VERSIONS));
        versions.add(ApiVersionsResponse.toApiVersion(ApiKeys.METADATA));
        versions.add(new ApiVersion().setApiKey(ApiKeys.PRODUCE.id).setMinVersion((short) 0).setMaxVersion(maxProduceVersion));
        return new ApiVersionsResponse(new ApiVersionsResponseData().setApiKeys(versions));
    }

    private MetadataResponse metadata(short version) {
        MetadataResponseData data = new MetadataResponseData();
        data.brokers().add(new MetadataResponseBroker().setNodeId(0).setHost("127.0.0.1").setPort(server.getLocalPort()));
        data.topics().add(new MetadataResponseTopic().setName(TOPIC).setTopicId(topicId)
                .setPartitions(List.of(new MetadataResponsePartition().setPartitionIndex(0).setLeaderId(0)
                        .setReplicaNodes(List.of(0)).setIsrNodes(List.of(0)))));
        return new MetadataResponse(data, version);
    }

    private ProduceResponse produceResponse(ProduceRequest request) {
        ProduceResponseData data = new ProduceResponseData();
        for (TopicProduceData topic : request.data().topicData()) {
            TopicProduceResponse response = new TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
            topic.partitionData().forEach(partition -> response.partitionResponses().add(new PartitionProduceResponse()
                    .setIndex(partition.index()).setErrorCode(produceError.code())));
            data.responses().add(response);
        }
        return new ProduceResponse(data);
    }

    private static void respond(DataOutputStream out, RequestHeader header, AbstractResponse response) throws IOException {
        ResponseHeader responseHeader = header.toResponseHeader();
        ByteBuffer bytes = RequestUtils.serialize(responseHeader.data(), responseHeader.headerVersion(), response.data(),
                header.apiVersion());
        out.writeInt(bytes.remaining());
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        out.flush();
    }
}
