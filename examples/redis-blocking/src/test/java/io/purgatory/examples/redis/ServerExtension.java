package io.purgatory.examples.redis;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** A {@link RedisServer} on a free loopback port for each test, closed after it. */
final class ServerExtension implements BeforeEachCallback, AfterEachCallback {

    private RedisServer server;

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        server = new RedisServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        server.close();
    }

    int port() {
        return server.port();
    }

    /** How many blocking pops wait in the hand-off now (INFO's blocked_clients). */
    long blocked() {
        return server.handOffMetrics().delayed();
    }
}
