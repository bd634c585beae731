package io.purgatory.examples.redis;

import io.purgatory.examples.common.ExampleServer;
import io.purgatory.examples.common.ServerCommand;
import java.io.IOException;
import java.net.InetSocketAddress;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The example's command line: starts a {@link RedisServer} and runs until interrupted (Ctrl-C). The
 * options ({@code --bind}, {@code --port}, {@code --port-file}) and their one-line errors are
 * {@link ServerCommand}'s. Not thread-safe; a command-line main.
 */
@Command(name = "example-redis-blocking", mixinStandardHelpOptions = true, showDefaultValues = true, version = "1.0.0-SNAPSHOT",
        usageHelpWidth = 110,
        description = {
            "A server speaking the Redis protocol (RESP2, and RESP3 after HELLO 3) for lists, whose blocking pops wait",
            "in purgatory-core's HandOff. Use redis-cli, Jedis, Lettuce or any Redis client:",
            "  LPUSH, RPUSH, LPOP, RPOP, LLEN, LRANGE, LMOVE, RPOPLPUSH, DEL, EXISTS, TYPE, SET, GET, FLUSHALL",
            "  BLPOP key [key ...] timeout          the first named key with a value serves; timeout in seconds,",
            "  BRPOP key [key ...] timeout          with a fraction, 0 waits for ever; clients blocked on a key",
            "  BLMOVE src dst LEFT|RIGHT LEFT|RIGHT timeout, BRPOPLPUSH src dst timeout   are served in the order",
            "                                       they blocked; a client that disconnects stops waiting",
            "  PING, ECHO, HELLO, SELECT 0, CLIENT SETNAME|GETNAME|SETINFO|ID, COMMAND, QUIT",
            "  INFO                                 blocked_clients (the parked pops), counters, timeout lateness",
            "Errors are Redis's own lines. One database, in memory only; no expiry, no persistence, no AUTH."})
public final class RedisMain extends ServerCommand {

    private RedisMain() {
        super("example-redis-blocking", 6379);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command, with an option error reported in one line instead of the whole usage. */
    static CommandLine commandLine() {
        return ServerCommand.commandLine(new RedisMain());
    }

    @Override
    protected ExampleServer start(InetSocketAddress address) throws IOException, InterruptedException {
        return new RedisServer(address);
    }

    @Override
    protected String listeningLine(String bind, int port) {
        return "listening on " + bind + ":" + port + " (redis-cli -p " + port + ")";
    }
}
