package io.purgatory.examples.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Input no client library sends, over a plain socket: each gets Redis 7.0's own error line (and,
 * for a protocol error, a closed connection, as Redis does), and another client is served
 * throughout. The expected lines are what redis-server 7.0.15 answers to the same bytes.
 */
class BadInputTest {

    @RegisterExtension
    final ServerExtension server = new ServerExtension();

    private void assertProtocolError(String input, String expectedLine) throws IOException {
        try (RawClient bad = new RawClient(server.port()); RawClient good = new RawClient(server.port())) {
            bad.send(input);
            assertEquals("-ERR Protocol error: " + expectedLine + "\r\n", bad.readToClose(), input);
            good.send("PING\r\n");
            assertEquals("+PONG\r\n", good.readLike("+PONG\r\n"));
        }
    }

    @Test
    void malformedRespIsAnsweredWithRedissErrorThenClosed() throws IOException {
        assertProtocolError("*1\r\n+foo\r\n", "expected '$', got '+'");
        assertProtocolError("*x\r\n", "invalid multibulk length");
        assertProtocolError("*3000000000\r\n", "invalid multibulk length");
        assertProtocolError("*1\r\n$-1\r\n", "invalid bulk length");
        assertProtocolError("*1\r\n$+1\r\n", "invalid bulk length");
        assertProtocolError("LPUSH \"a b c\r\n", "unbalanced quotes in request");
    }

    @Test
    void hugeBulkLengthsAreRefusedBeforeAnythingIsRead() throws IOException {
        assertProtocolError("*1\r\n$999999999999\r\n", "invalid bulk length");
        assertProtocolError("*1\r\n$536870913\r\n", "invalid bulk length"); // one more than Redis's proto-max-bulk-len
        assertProtocolError("*1\r\n$" + "9".repeat(70_000), "too big bulk count string");
        assertProtocolError("*" + "9".repeat(70_000), "too big mbulk count string");
        assertProtocolError("PING" + " ".repeat(70_000), "too big inline request");
    }

    @Test
    void anUnknownCommandIsAnErrorAndTheConnectionStaysUsable() throws IOException {
        try (RawClient client = new RawClient(server.port())) {
            client.send("*3\r\n$3\r\nFOO\r\n$1\r\na\r\n$2\r\nbc\r\n*1\r\n$4\r\nPING\r\n");
            String expected = "-ERR unknown command 'FOO', with args beginning with: 'a' 'bc' \r\n+PONG\r\n";
            assertEquals(expected, client.readLike(expected));
            client.send("*2\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n");
            String arity = "-ERR wrong number of arguments for 'blpop' command\r\n";
            assertEquals(arity, client.readLike(arity));
        }
    }

    @Test
    void aCommandSplitOverManyPacketsIsPutTogether() throws IOException {
        try (RawClient client = new RawClient(server.port())) {
            String push = "*4\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n$5\r\nhello\r\n$11\r\nhello world\r\n";
            for (int i = 0; i < push.length(); i++) {
                client.send(push.substring(i, i + 1)); // one byte a segment: TCP_NODELAY
            }
            assertEquals(":2\r\n", client.readLike(":2\r\n"));
            client.send("*4\r\n$6\r\nLRANGE\r\n$4\r\nlist\r\n$1\r\n0\r\n$2\r\n-1\r\n*1\r\n$4\r\nPING\r\nLLEN list\r\nECHO 'a b'\r\n");
            String expected = "*2\r\n$5\r\nhello\r\n$11\r\nhello world\r\n+PONG\r\n:2\r\n$3\r\na b\r\n";
            assertEquals(expected, client.readLike(expected));
        }
    }

    @Test
    void commandsPipelinedBehindAParkedPopRunWhenItIsAnswered() throws IOException {
        try (RawClient popper = new RawClient(server.port()); RawClient pusher = new RawClient(server.port())) {
            popper.send("BLPOP k 0\r\nLLEN k\r\nPING\r\n");
            await().until(() -> server.blocked() == 1);
            pusher.send("RPUSH k a b\r\n");
            assertEquals(":2\r\n", pusher.readLike(":2\r\n"));
            String expected = "*2\r\n$1\r\nk\r\n$1\r\na\r\n:1\r\n+PONG\r\n";
            assertEquals(expected, popper.readLike(expected));
        }
    }

    @Test
    void aClientThatNeverReadsHoldsUpNoOtherClient() throws IOException {
        try (RawClient silent = new RawClient(server.port()); RawClient other = new RawClient(server.port())) {
            String value = "v".repeat(1024);
            StringBuilder fill = new StringBuilder();
            for (int i = 0; i < 1000; i++) {
                fill.append("RPUSH big ").append(value).append("\r\n");
            }
            other.send(fill.toString());
            for (int i = 1; i <= 1000; i++) {
                other.readLike(":" + i + "\r\n");
            }
            // 2,000 replies of 1 MB each asked for, none read: far more than the socket buffers hold; the
            // server stops running its commands once its outgoing buffer is full, then stops reading it
            silent.send("LRANGE big 0 -1\r\n".repeat(2_000));
            for (int round = 0; round < 20; round++) {
                other.send("RPUSH q x" + round + "\r\nBLPOP q 1\r\n");
                String expected = ":1\r\n*2\r\n$1\r\nq\r\n$" + ("x" + round).length() + "\r\nx" + round + "\r\n";
                assertEquals(expected, other.readLike(expected));
            }
            assertFalse(silent.closedByServer(), "the silent client is still connected");
        }
    }

    @Test
    void aClientThatDisconnectsWhileBlockedNoLongerWaits() throws IOException {
        RawClient leaving = new RawClient(server.port());
        try (RawClient staying = new RawClient(server.port())) {
            leaving.send("BLPOP k 0\r\n");
            await().until(() -> server.blocked() == 1);
            leaving.close();
            await().until(() -> server.blocked() == 0);
            staying.send("BLPOP k 0\r\n");
            await().until(() -> server.blocked() == 1);
            try (RawClient pusher = new RawClient(server.port())) {
                pusher.send("RPUSH k only\r\n");
                assertEquals(":1\r\n", pusher.readLike(":1\r\n"));
            }
            String expected = "*2\r\n$1\r\nk\r\n$4\r\nonly\r\n";
            assertEquals(expected, staying.readLike(expected));
            assertFalse(staying.closedByServer());
        }
    }
}
