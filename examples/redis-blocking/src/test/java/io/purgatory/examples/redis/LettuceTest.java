package io.purgatory.examples.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lettuce 7, a client no one here wrote, in RESP3 (its HELLO 3) and in RESP2: blocking pops
 * pipelined on one connection, pushed from another.
 */
class LettuceTest {

    @RegisterExtension
    final ServerExtension server = new ServerExtension();

    private RedisClient client;

    @AfterEach
    void shutDown() {
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    private StatefulRedisConnection<String, String> connect(ProtocolVersion protocol) {
        if (client == null) {
            client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                    .withTimeout(Duration.ofSeconds(60)).build());
        }
        client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        return client.connect();
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void aThousandPipelinedBlockingPopsOnOneConnectionEachGetADistinctValueOnce(ProtocolVersion protocol) throws Exception {
        try (StatefulRedisConnection<String, String> popping = connect(protocol);
                StatefulRedisConnection<String, String> pushing = connect(protocol)) {
            RedisAsyncCommands<String, String> pops = popping.async();
            popping.setAutoFlushCommands(false);
            List<RedisFuture<KeyValue<String, String>>> answers = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                answers.add(pops.blpop(0, "jobs"));
            }
            popping.flushCommands();
            await().until(() -> server.blocked() == 1); // one connection: its pops wait one after the other, as in Redis

            RedisCommands<String, String> push = pushing.sync();
            List<String> pushed = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                pushed.add("job-" + i);
                push.rpush("jobs", "job-" + i);
            }

            List<String> popped = new ArrayList<>();
            for (RedisFuture<KeyValue<String, String>> answer : answers) {
                KeyValue<String, String> value = answer.get(30, TimeUnit.SECONDS);
                assertEquals("jobs", value.getKey());
                popped.add(value.getValue());
            }
            assertEquals(pushed, popped, "each value to one pop, in the order pushed");
            Set<String> distinct = new HashSet<>(popped);
            assertEquals(1_000, distinct.size());
            assertEquals(0, push.llen("jobs"));
            assertEquals(0, server.blocked());
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    @SuppressWarnings("deprecation") // BRPOPLPUSH: deprecated by Redis for BLMOVE since 6.2, and still served
    void timeoutsAnswerNilAndMovesHandOn(ProtocolVersion protocol) throws Exception {
        try (StatefulRedisConnection<String, String> connection = connect(protocol);
                StatefulRedisConnection<String, String> other = connect(protocol)) {
            RedisCommands<String, String> sync = connection.sync();
            assertNull(sync.blpop(0.05, "empty"));
            assertNull(sync.brpop(0.05, "empty", "also-empty"));
            assertNull(sync.blmove("empty", "out", LMoveArgs.Builder.leftRight(), 0.05));
            assertNull(sync.brpoplpush(0.05, "empty", "out"));

            RedisFuture<String> move = other.async().blmove("in", "out", LMoveArgs.Builder.rightLeft(), 0);
            await().until(() -> server.blocked() == 1);
            assertEquals(2, sync.lpush("in", "first", "second"));
            assertEquals("first", move.get(10, TimeUnit.SECONDS));
            assertEquals(List.of("first"), sync.lrange("out", 0, -1));
            assertEquals(List.of("second"), sync.lrange("in", 0, -1));
        }
    }

    @Test
    void resp3IsSpokenAfterHello() {
        try (StatefulRedisConnection<String, String> connection = connect(ProtocolVersion.RESP3)) {
            RedisCommands<String, String> sync = connection.sync();
            assertEquals("PONG", sync.ping());
            assertNull(sync.lpop("nothing"));
            assertEquals(1, sync.rpush("k", "v"));
            assertEquals("v", sync.lpop("k"));
            String info = sync.info("clients");
            assertTrue(info.contains("blocked_clients:0"), info);
        }
    }
}
