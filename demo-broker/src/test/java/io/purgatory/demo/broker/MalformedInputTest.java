package io.purgatory.demo.broker;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Bad input closes only the connection it came on: a well-formed client connected before, and
 * one connecting after, are still served, and so is a request parked before the bad input.
 */
@Tag("integration")
class MalformedInputTest {
    private static final int MAX_FRAME = 64 * 1024;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.maxFrameBytes(MAX_FRAME));
    private DemoBroker broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = brokers.get();
    }

    static Stream<Arguments> malformed() throws IOException {
        return Stream.of(
                Arguments.of("garbage bytes", "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                Arguments.of("negative length prefix", frameOfLength(-1, 8)),
                Arguments.of("huge length prefix", frameOfLength(Integer.MAX_VALUE, 8)),
                Arguments.of("length just above the maximum", frameOfLength(MAX_FRAME + 1, 8)),
                Arguments.of("unknown api key", frame(header((short) 999, (short) 0))),
                Arguments.of("api key the broker does not speak (JoinGroup)", frame(header(ApiKeys.JOIN_GROUP.id, (short) 9))),
                Arguments.of("fetch body that does not parse", frame(concat(header(ApiKeys.FETCH.id, (short) 11), new byte[] {1, 2, 3}))),
                Arguments.of("unsupported Fetch version", frame(header(ApiKeys.FETCH.id, (short) 3))),
                Arguments.of("unsupported Produce version", frame(header(ApiKeys.PRODUCE.id, (short) 99))),
                Arguments.of("truncated header", frame(new byte[] {0, 0, 0})),
                Arguments.of("produce body that does not parse", frame(concat(header(ApiKeys.PRODUCE.id, (short) 9), new byte[] {1, 2, 3}))),
                Arguments.of("empty frame", frame(new byte[0])));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void closesOnlyThatConnection(String what, byte[] bytes) throws Exception {
        WireClient bystander = brokers.connect();
        WireClient offender = brokers.connect();
        var parked = bystander.send(WireClient.produce("demo", 0, (short) -1, 60_000, 1));
        broker.followers().stall(1);
        broker.followers().stall(2);
        var parkedWhileStalled = bystander.send(WireClient.produce("demo", 1, (short) -1, 60_000, 1));

        offender.sendRaw(bytes);

        Waits.soon().until(() -> offender.closedByBroker().isDone());
        assertFalse(bystander.closedByBroker().isDone(), "the other connection stays open");
        broker.followers().resume(1);
        broker.followers().resume(2);
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(parked)).errorCode());
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(parkedWhileStalled)).errorCode());
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(
                DemoBrokerTest.answer(bystander.send(WireClient.produce("demo", 2, (short) 1, 1_000, 1)))).errorCode());
        assertEquals(java.util.List.of(), bystander.protocolErrors());
        WireClient newcomer = brokers.connect();
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(
                DemoBrokerTest.answer(newcomer.send(WireClient.produce("demo", 0, (short) -1, 10_000, 1)))).errorCode());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aValidRequestJustBeforeBadInputIsAnsweredThenTheConnectionCloses(String what, byte[] bad) throws Exception {
        ByteBuffer request = new ApiVersionsRequest.Builder(ApiKeys.API_VERSIONS.latestVersion()).build()
                .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.latestVersion(), "client", 41));
        byte[] valid = frame(java.util.Arrays.copyOfRange(request.array(), request.arrayOffset(), request.arrayOffset() + request.remaining()));
        try (java.net.Socket socket = new java.net.Socket("localhost", broker.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.write(concat(valid, bad)); // one write: both arrive in one read
            out.flush();
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            assertEquals(41, ByteBuffer.wrap(response).getInt(), "the valid request's answer comes first");
            assertEquals(-1, in.read(), "then the connection closes");
        }
    }

    @Test
    void anApiVersionsRequestTooNewIsAnsweredInVersionZeroWithUnsupportedVersion() throws Exception {
        short tooNew = (short) (ApiKeys.API_VERSIONS.latestVersion() + 1);
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, tooNew, "future-client", 7);
        try (java.net.Socket socket = new java.net.Socket("localhost", broker.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            ByteBuffer body = new ApiVersionsRequest.Builder(ApiKeys.API_VERSIONS.latestVersion())
                    .build().serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.latestVersion(), "future-client", 7));
            body.putShort(2, tooNew); // same bytes, a version from the future
            out.write(frame(java.util.Arrays.copyOfRange(body.array(), body.arrayOffset(), body.arrayOffset() + body.remaining())));
            out.flush();
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBuffer buffer = ByteBuffer.wrap(response);
            assertEquals(header.correlationId(), buffer.getInt());
            ApiVersionsResponse versions = ApiVersionsResponse.parse(new org.apache.kafka.common.protocol.ByteBufferAccessor(buffer), (short) 0);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), versions.data().errorCode());
            assertEquals(ApiKeys.PRODUCE.latestVersion(), versions.apiVersion(ApiKeys.PRODUCE.id).maxVersion());
        }
    }

    private static byte[] header(short apiKey, short apiVersion) {
        // request header v2: api key, version, correlation id, null client id, no tagged fields
        ByteBuffer buffer = ByteBuffer.allocate(11);
        buffer.putShort(apiKey).putShort(apiVersion).putInt(1).putShort((short) -1).put((byte) 0);
        return buffer.array();
    }

    private static byte[] frame(byte[] body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(body.length);
        out.write(body);
        return bytes.toByteArray();
    }

    private static byte[] frameOfLength(int declaredLength, int actualBytes) {
        return ByteBuffer.allocate(4 + actualBytes).putInt(declaredLength).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
