package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-process broker on a free port and the {@link WireClient}s connected to it, closed together
 * after a test. Not thread-safe: one test's, used from its thread.
 */
public final class BrokerFixture implements AutoCloseable {
    private final List<WireClient> clients = new ArrayList<>();
    private DemoBroker broker;

    /** Starts the broker on a free port. */
    DemoBroker start(BrokerConfig.Builder config) throws Exception {
        broker = DemoBroker.start(config.port(0).build());
        return broker;
    }

    /** A new client connected to the broker, closed with the fixture. */
    WireClient connect() throws Exception {
        WireClient client = new WireClient(broker.port());
        clients.add(client);
        return client;
    }

    List<WireClient> clients() {
        return clients;
    }

    @Override
    public void close() throws IOException {
        for (WireClient client : clients) {
            client.close();
        }
        if (broker != null) {
            broker.close();
        }
    }
}
