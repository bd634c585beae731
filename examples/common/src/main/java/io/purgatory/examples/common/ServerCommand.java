package io.purgatory.examples.common;

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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The command line of an example server: {@code --bind}, {@code --port} and {@code --port-file},
 * every option checked before anything starts, and the server run until the JVM is asked to stop
 * (Ctrl-C, SIGTERM), when it is closed. A bad option is reported in one line naming it, with exit
 * code 2 ({@link #commandLine}); an address it cannot listen on, or a port file it cannot write, in
 * one line with exit code 1.
 *
 * <p>A subclass is a picocli {@code @Command} with options of its own: it checks them in
 * {@link #checkOwnOptions()} and starts its server in {@link #start}. Not thread-safe; a
 * command-line main.
 */
public abstract class ServerCommand implements Callable<Integer> {

    @Option(names = "--bind", description = "Address to listen on.")
    private String bind = "127.0.0.1";

    @Option(names = "--port", description = "Port to listen on, 0 to 65535 (0: any free port).")
    private int port;

    @Option(names = "--port-file", description = "Write the port listened on to this file once listening (for scripts and tests).")
    private @Nullable Path portFile;

    @Spec
    private @Nullable CommandSpec spec;

    private final String name;

    /**
     * @param name the command's name, which starts each error line
     * @param defaultPort the port it listens on unless {@code --port} says otherwise
     */
    protected ServerCommand(String name, int defaultPort) {
        this.name = name;
        this.port = defaultPort;
    }

    /**
     * The command line of command, reporting an option error in one line ("name: message (see --help)",
     * exit code 2) instead of the whole usage.
     *
     * @param command the command, a subclass annotated with picocli's {@code @Command}
     * @return its command line, ready to {@code execute}
     */
    public static CommandLine commandLine(ServerCommand command) {
        return new CommandLine(command).setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println(command.name + ": " + e.getMessage() + " (see --help)");
            return CommandLine.ExitCode.USAGE;
        });
    }

    /**
     * Starts the server.
     *
     * @param address where to listen, from {@code --bind} and {@code --port}
     * @return the running server
     * @throws IOException if it cannot listen there; nothing is left running
     * @throws InterruptedException if interrupted while starting; nothing is left running
     */
    protected abstract ExampleServer start(InetSocketAddress address) throws IOException, InterruptedException;

    /**
     * The line printed once the server listens, for a person: where to point a client.
     *
     * @param bind the address listened on, as given
     * @param port the port listened on
     * @return the line
     */
    protected abstract String listeningLine(String bind, int port);

    /** Checks the subclass's own options; a bad one is reported with {@link #require}. */
    protected void checkOwnOptions() {
    }

    /**
     * Fails the command with a one-line error unless condition holds.
     *
     * @param condition what must hold
     * @param message the error, naming the option and its value
     * @throws CommandLine.ParameterException if condition is false
     */
    protected final void require(boolean condition, String message) {
        if (!condition) {
            throw new CommandLine.ParameterException(spec().commandLine(), message);
        }
    }

    @Override
    public final Integer call() throws InterruptedException {
        checkOptions();
        ExampleServer server;
        try {
            server = start(new InetSocketAddress(bind, port));
        } catch (IOException e) { // Netty's bind throws the socket's exception unchecked: a port in use, say
            spec().commandLine().getErr().println(name + ": cannot listen on " + bind + ":" + port + ": " + e.getMessage());
            return 1;
        }
        if (portFile != null) {
            try {
                writePortFile(portFile, server.port());
            } catch (IOException e) {
                server.close();
                spec().commandLine().getErr().println(name + ": cannot write --port-file " + portFile + ": " + e);
                return 1;
            }
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, name + "-shutdown"));
        spec().commandLine().getOut().println(listeningLine(bind, server.port()));
        spec().commandLine().getOut().flush();
        stopped.await();
        return 0;
    }

    private CommandSpec spec() {
        if (spec == null) {
            throw new IllegalStateException(name + ": run through commandLine(...), which injects the command's spec");
        }
        return spec;
    }

    /** Checks every option before anything starts; a bad one is a {@link CommandLine.ParameterException} naming it. */
    private void checkOptions() {
        require(port >= 0 && port <= 65535, "--port must be from 0 to 65535, not " + port);
        require(isLocalAddress(bind), "--bind " + bind + " is not an address of this machine");
        if (portFile != null) {
            Path parent = portFile.toAbsolutePath().getParent();
            require(parent != null && Files.isDirectory(parent), "--port-file " + portFile + ": no such directory " + parent);
        }
        checkOwnOptions();
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

    /** Writes the port whole or not at all: a reader never sees half a number. */
    private static void writePortFile(Path file, int port) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path temporary = Files.createTempFile(absolute.getParent(), ".port", ".tmp");
        Files.writeString(temporary, port + "\n", StandardCharsets.US_ASCII);
        Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
