package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * The loopback ports of one KRaft node: its broker listener, its controller listener and its JMX agent.
 * A node keeps its ports across a restart, so that the quorum and the clients find it again.
 *
 * <p>Immutable, so thread-safe.
 *
 * @param broker the PLAINTEXT listener that clients and the other brokers use
 * @param controller the CONTROLLER listener of the quorum
 * @param jmx the JMX agent's RMI registry and server port
 */
public record NodePorts(int broker, int controller, int jmx) {

    /**
     * Free ports for {@code count} nodes, all distinct: each is bound on 127.0.0.1 while the others are
     * taken, then released for the node to bind.
     */
    public static List<NodePorts> allocate(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<NodePorts> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ports.add(new NodePorts(bind(held), bind(held), bind(held)));
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // a socket that does not close keeps its port: the node that gets it fails to bind and says so
                }
            }
        }
    }

    private static int bind(List<ServerSocket> held) throws IOException {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        held.add(socket);
        return socket.getLocalPort();
    }
}
