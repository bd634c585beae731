package io.purgatory.examples.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.KeyValue;

/** Jedis 8, a client no one here wrote (RESP2), against the server: lists, blocking pops and Redis's errors. */
class JedisTest {

    @RegisterExtension
    final ServerExtension server = new ServerExtension();

    private final ExecutorService poppers = Executors.newCachedThreadPool();

    @AfterEach
    void stopPoppers() throws InterruptedException {
        poppers.shutdownNow();
        poppers.awaitTermination(10, TimeUnit.SECONDS);
    }

    private Jedis jedis() {
        return new Jedis("127.0.0.1", server.port(), 10_000, 30_000);
    }

    @Test
    void listsBehaveAsRedissDo() {
        try (Jedis jedis = jedis()) {
            assertEquals("PONG", jedis.ping());
            assertEquals(3, jedis.rpush("k", "a", "b", "c"));
            assertEquals(4, jedis.lpush("k", "z"));
            assertEquals(List.of("z", "a", "b", "c"), jedis.lrange("k", 0, -1));
            assertEquals(List.of("b", "c"), jedis.lrange("k", -2, 100));
            assertEquals("z", jedis.lpop("k"));
            assertEquals("c", jedis.rpop("k"));
            assertEquals(List.of("a", "b"), jedis.lpop("k", 5));
            assertEquals(0, jedis.llen("k"));
            assertNull(jedis.lpop("k"));
            assertNull(jedis.lpop("k", 2));
            jedis.rpush("src", "1", "2");
            assertEquals("2", jedis.lmove("src", "dst", ListDirection.RIGHT, ListDirection.LEFT));
            assertEquals(List.of("2"), jedis.lrange("dst", 0, -1));
            assertEquals(2, jedis.del("src", "dst", "nothing"));
        }
    }

    @Test
    void aBlockingPopTakesFromTheFirstNamedKeyThatHasAValue() {
        try (Jedis jedis = jedis()) {
            jedis.rpush("second", "s");
            jedis.rpush("third", "t");
            assertEquals(new KeyValue<>("second", "s"), jedis.blpop(1.0, "first", "second", "third"));
            assertEquals(new KeyValue<>("third", "t"), jedis.brpop(1.0, "first", "second", "third"));
            assertNull(jedis.blpop(0.05, "first"), "a timeout answers nil");
        }
    }

    @Test
    void clientsBlockedOnAKeyAreServedInTheOrderTheyBlocked() throws Exception {
        List<Future<KeyValue<String, String>>> pops = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pops.add(poppers.submit(() -> {
                try (Jedis popper = jedis()) {
                    return popper.blpop(0.0, "jobs");
                }
            }));
            int blocked = i + 1;
            await().until(() -> server.blocked() == blocked);
        }
        try (Jedis pusher = jedis()) {
            assertEquals(5, pusher.rpush("jobs", "j0", "j1", "j2", "j3", "j4"));
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(new KeyValue<>("jobs", "j" + i), pops.get(i).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    @SuppressWarnings("deprecation") // BRPOPLPUSH: deprecated by Redis for BLMOVE since 6.2, and still served
    void aBlockingMoveHandsTheValueOnToAClientBlockedOnTheDestination() throws Exception {
        Future<String> move = poppers.submit(() -> {
            try (Jedis mover = jedis()) {
                return mover.blmove("in", "out", ListDirection.LEFT, ListDirection.RIGHT, 0.0);
            }
        });
        await().until(() -> server.blocked() == 1);
        Future<KeyValue<String, String>> pop = poppers.submit(() -> {
            try (Jedis popper = jedis()) {
                return popper.brpop(0.0, "out");
            }
        });
        await().until(() -> server.blocked() == 2);
        try (Jedis pusher = jedis()) {
            pusher.rpush("in", "job");
            assertEquals("job", move.get(10, TimeUnit.SECONDS));
            assertEquals(new KeyValue<>("out", "job"), pop.get(10, TimeUnit.SECONDS));
            assertEquals(0, pusher.llen("in") + pusher.llen("out"));
            assertNull(pusher.brpoplpush("in", "out", 1), "a timed-out BRPOPLPUSH answers nil");
        }
    }

    private static final ProtocolCommand BLPOP = () -> "BLPOP".getBytes(StandardCharsets.US_ASCII);

    @Test
    void errorsAreRedissOwnLines() {
        try (Jedis jedis = jedis()) {
            jedis.set("text", "v");
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                    assertThrows(JedisDataException.class, () -> jedis.blpop(1.0, "text")).getMessage());
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                    assertThrows(JedisDataException.class, () -> jedis.lpush("text", "x")).getMessage());
            assertEquals("ERR timeout is negative",
                    assertThrows(JedisDataException.class, () -> jedis.blpop(-1.0, "k")).getMessage());
            assertEquals("ERR timeout is not a float or out of range",
                    assertThrows(JedisDataException.class, () -> jedis.sendCommand(BLPOP, "k", "soon")).getMessage());
            assertEquals("ERR wrong number of arguments for 'blpop' command",
                    assertThrows(JedisDataException.class, () -> jedis.sendCommand(BLPOP, "k")).getMessage());
            assertEquals("ERR value is out of range, must be positive",
                    assertThrows(JedisDataException.class, () -> jedis.lpop("k", -1)).getMessage());
        }
    }
}
