package io.purgatory.benchmarks.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The clients of {@link LongPollFootprint}, in a process of their own: plain sockets, one blocking
 * query each, no HTTP library (so that a hundred thousand fit). Commands on stdin, one report line
 * on stdout each:
 * <ul>
 *   <li>{@code park N KEYS PREFIX}: opens N connections, spread over the {@code 127.0.0.x} addresses
 *       (one address has too few ephemeral ports), each sending
 *       {@code GET /kv/PREFIX(i % KEYS)?index=0&wait=10m}, keys never written before;
 *       prints {@code parked N};</li>
 *   <li>{@code put KEY VALUE}: sends {@code PUT /kv/KEY} on a new connection, then reads every open
 *       connection until each has its answer; prints {@code answered N in T ms}, T from just before
 *       the PUT was sent to the last answer read;</li>
 *   <li>{@code close}: closes every connection; prints {@code closed N}.</li>
 * </ul>
 * Not thread-safe; a tool's main, one thread.
 */
public final class LongPollClients {

    private final int port;
    private final int addresses;
    private final List<SocketChannel> open = new ArrayList<>();

    private LongPollClients(int port, int addresses) {
        this.port = port;
        this.addresses = addresses;
    }

    public static void main(String[] args) throws IOException {
        LongPollClients clients = new LongPollClients(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = commands.readLine(); line != null; line = commands.readLine()) {
            String[] command = line.split(" ");
            switch (command[0]) {
                case "park" -> clients.park(Integer.parseInt(command[1]), Integer.parseInt(command[2]), command[3]);
                case "put" -> clients.put(command[1], command[2]);
                case "close" -> clients.closeAll();
                default -> throw new IllegalArgumentException("unknown command: " + line);
            }
            System.out.flush();
        }
    }

    private void park(int count, int keys, String prefix) throws IOException {
        for (int i = 0; i < count; i++) {
            SocketChannel channel = SocketChannel.open(address(i));
            write(channel, "GET /kv/" + prefix + (i % keys) + "?index=0&wait=10m HTTP/1.1\r\nHost: kv\r\n\r\n");
            open.add(channel);
        }
        System.out.println("parked " + count);
    }

    private void put(String key, String value) throws IOException {
        try (Selector selector = Selector.open()) {
            for (SocketChannel channel : open) {
                channel.configureBlocking(false);
                channel.register(selector, SelectionKey.OP_READ, new StringBuilder());
            }
            long start = System.nanoTime();
            try (SocketChannel writer = SocketChannel.open(address(0))) {
                write(writer, "PUT /kv/" + key + " HTTP/1.1\r\nHost: kv\r\nContent-Length: " + value.length() + "\r\n\r\n" + value);
                int answered = 0;
                ByteBuffer buffer = ByteBuffer.allocate(4096);
                while (answered < open.size()) {
                    selector.select();
                    for (SelectionKey ready : selector.selectedKeys()) {
                        StringBuilder received = (StringBuilder) ready.attachment();
                        buffer.clear();
                        if (((SocketChannel) ready.channel()).read(buffer) > 0) {
                            received.append(StandardCharsets.UTF_8.decode(buffer.flip()));
                            if (received.toString().endsWith("\r\n\r\n" + value)) {
                                answered++;
                                ready.cancel();
                            }
                        }
                    }
                    selector.selectedKeys().clear();
                }
                double ms = (System.nanoTime() - start) / 1e6;
                System.out.println(String.format(Locale.ROOT, "answered %d in %.1f ms", answered, ms));
            }
        }
        for (SocketChannel channel : open) {
            channel.configureBlocking(true);
        }
    }

    private void closeAll() throws IOException {
        for (SocketChannel channel : open) {
            channel.close();
        }
        System.out.println("closed " + open.size());
        open.clear();
    }

    private InetSocketAddress address(int i) {
        return new InetSocketAddress("127.0.0." + (1 + i % addresses), port);
    }

    private static void write(SocketChannel channel, String request) throws IOException {
        ByteBuffer bytes = StandardCharsets.US_ASCII.encode(request);
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }
}
