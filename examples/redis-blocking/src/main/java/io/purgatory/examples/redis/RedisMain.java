package io.purgatory.examples.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The example's command line: starts a {@link RedisServer} and runs until interrupted (Ctrl-C).
 * Every option is checked before anything starts; a bad one is reported in one line, naming it,
 * with exit code 2; an address it cannot listen on, or a port file it cannot write, in one line
 * with exit code 1. Not thread-safe; a command-line main.
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
public final class RedisMain implements Callable<Integer> {

    @Option(names = "--bind", description = "Address to listen on.")
    private String bind = "127.0.0.1";

    @Option(names = "--port", description = "Port to listen on, 0 to 65535 (0: any free port).")
    private int port = 6379;

    @Option(names = "--port-file", description = "Write the port listened on to this file once listening (for scripts and tests).")
    private @Nullable Path portFile;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command, with an option error reported in one line instead of the whole usage. */
    static CommandLine commandLine() {
        return new CommandLine(new RedisMain()).setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("example-redis-blocking: " + e.getMessage() + " (see --help)");
            return CommandLine.ExitCode.USAGE;
        });
    }

    @Override
    public Integer call() throws InterruptedException {
        checkOptions();
        RedisServer server;
        try {
            server = new RedisServer(new InetSocketAddress(bind, port));
        } catch (IOException e) { // Netty's bind throws the socket's exception unchecked: a port in use, say
            spec.commandLine().getErr().println("example-redis-blocking: cannot listen on " + bind + ":" + port + ": " + e.getMessage());
            return 1;
        }
        if (portFile != null) {
            try {
                writePortFile(portFile, server.port());
            } catch (IOException e) {
                server.close();
                spec.commandLine().getErr().println("example-redis-blocking: cannot write --port-file " + portFile + ": " + e);
                return 1;
            }
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "redis-shutdown"));
        System.out.println("listening on " + bind + ":" + server.port() + " (redis-cli -p " + server.port() + ")");
        stopped.await();
        return 0;
    }

    /** Writes the port whole or not at all: a reader never sees half a number. */
    private static void writePortFile(Path file, int port) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path temporary = Files.createTempFile(absolute.getParent(), ".port", ".tmp");
        Files.writeString(temporary, port + "\n", StandardCharsets.US_ASCII);
        Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Checks every option before anything starts; a bad one is a {@link CommandLine.ParameterException} naming it. */
    private void checkOptions() {
        require(port >= 0 && port <= 65535, "--port must be from 0 to 65535, not " + port);
        require(isLocalAddress(bind), "--bind " + bind + " is not an address of this machine");
        if (portFile != null) {
            Path parent = portFile.toAbsolutePath().getParent();
            require(parent != null && Files.isDirectory(parent), "--port-file " + portFile + ": no such directory " + parent);
        }
    }

    /** Whether the server can listen on {@code host}: the wildcard, or an address of one of this machine's interfaces. */
    private static boolean isLocalAddress(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            return address.isAnyLocalAddress() || address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
