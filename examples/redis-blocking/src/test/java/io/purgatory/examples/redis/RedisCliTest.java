package io.purgatory.examples.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * redis-cli (Debian's redis-tools, 7.0; installed as CI installs it, by .ci/run) against the server:
 * what a person typing at it sees. Without redis-cli on the PATH this test fails, it does not skip.
 * The expected outputs are what redis-cli prints against redis-server 7.0.15 itself.
 */
@Tag("integration")
class RedisCliTest {

    @RegisterExtension
    final ServerExtension server = new ServerExtension();

    /** Starts redis-cli with these arguments, against the server. */
    private Process start(String... arguments) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(server.port())));
        command.addAll(List.of(arguments));
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return fail("redis-cli is not on the PATH: install redis-tools (.ci/run does): " + e.getMessage());
        }
    }

    /** Runs redis-cli with these arguments and returns what it printed. */
    private String cli(String... arguments) throws Exception {
        return output(start(arguments));
    }

    private static String output(Process process) throws Exception {
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "redis-cli ended");
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void listsAndBlockingPops() throws Exception {
        assertEquals("PONG\n", cli("PING"));
        assertEquals("3\n", cli("RPUSH", "queue", "a", "b", "c"));
        assertEquals("a\nb\nc\n", cli("LRANGE", "queue", "0", "-1"));
        assertEquals("queue\na\n", cli("BLPOP", "queue", "0"));
        assertEquals("queue\nc\n", cli("BRPOP", "empty", "queue", "1.5"));
        assertEquals("b\n", cli("BLMOVE", "queue", "other", "LEFT", "RIGHT", "0"));
        assertEquals("\n", cli("BLPOP", "empty", "0.1"), "a timeout: nil, an empty line");
    }

    @Test
    void aBlockedRedisCliIsAnsweredByAPushFromAnother() throws Exception {
        Process blocked = start("BLPOP", "jobs", "0");
        await().until(() -> server.blocked() == 1);
        assertEquals("1\n", cli("LPUSH", "jobs", "job-1"));
        assertEquals("jobs\njob-1\n", output(blocked));
        assertEquals("0\n", cli("LLEN", "jobs"));
    }

    @Test
    void resp3AfterHello() throws Exception {
        assertEquals("1\n", cli("-3", "RPUSH", "k", "v"));
        assertEquals("k\nv\n", cli("-3", "BLPOP", "k", "0"));
        assertEquals("\n", cli("-3", "BLPOP", "k", "0.05"));
    }

    @Test
    void errorsAreRedissOwnLines() throws Exception { // redis-cli ends an error with an empty line
        assertEquals("ERR wrong number of arguments for 'blpop' command\n\n", cli("BLPOP", "k"));
        assertEquals("ERR timeout is not a float or out of range\n\n", cli("BLPOP", "k", "soon"));
        assertEquals("ERR timeout is negative\n\n", cli("BLPOP", "k", "-1"));
        assertEquals("ERR unknown command 'NOPE', with args beginning with: 'x' \n\n", cli("NOPE", "x"));
        assertEquals("OK\n", cli("SET", "text", "v"));
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value\n\n", cli("BLPOP", "text", "1"));
    }

    @Test
    void commandsFromStandardInput() throws Exception {
        Process process = start();
        process.getOutputStream().write("RPUSH k 1 2\nLPOP k\nBRPOP k 0\nLLEN k\n".getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        assertEquals("2\n1\nk\n2\n0\n", output(process));
    }
}
