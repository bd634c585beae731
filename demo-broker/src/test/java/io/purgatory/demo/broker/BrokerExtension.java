package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A {@link DemoBroker} on a free port for one test, with the {@link WireClient}s the test opens
 * through it; after the test, every client is checked (responses in request order, all parseable)
 * and closed, then the broker. Register it on an instance field, with the settings its tests share:
 *
 * <pre>{@code
 * @RegisterExtension
 * final BrokerExtension brokers = new BrokerExtension(config -> config.stallReplica(2));
 *
 * @Test
 * void parks(DemoBroker broker) throws Exception {       // started with the settings above
 *     WireClient client = brokers.connect();             // closed after the test
 *     ...
 * }
 *
 * @Test
 * void refuses() throws Exception {
 *     DemoBroker broker = brokers.start(BrokerConfig.builder().maxParkedRequests(10)); // this test's own settings
 *     ...
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one test's, used from its thread (the broker and clients themselves are thread-safe).
 */
public final class BrokerExtension implements AfterEachCallback, ParameterResolver {
    private final UnaryOperator<BrokerConfig.Builder> settings;
    private final List<WireClient> clients = new ArrayList<>();
    private DemoBroker broker;

    /** Brokers with the command line's defaults. */
    public BrokerExtension() {
        this(UnaryOperator.identity());
    }

    /** Brokers with {@code settings} applied to the defaults, for {@link #get()}, {@link #connect()} and injected parameters. */
    public BrokerExtension(UnaryOperator<BrokerConfig.Builder> settings) {
        this.settings = settings;
    }

    /** Starts this test's broker with {@code config} on a free port (whatever port it names). */
    public DemoBroker start(BrokerConfig.Builder config) throws IOException, InterruptedException {
        if (broker != null) {
            throw new IllegalStateException("this test's broker is already started");
        }
        broker = DemoBroker.start(config.port(0).build());
        return broker;
    }

    /** This test's broker, started with the extension's settings unless the test started its own. */
    public DemoBroker get() throws IOException, InterruptedException {
        return broker != null ? broker : start(settings.apply(BrokerConfig.builder()));
    }

    /** The port of {@link #get()}. */
    public int port() throws IOException, InterruptedException {
        return get().port();
    }

    /** A new client connected to {@link #get()}, checked and closed after the test. */
    public WireClient connect() throws IOException, InterruptedException {
        WireClient client = new WireClient(port());
        clients.add(client);
        return client;
    }

    /** The clients {@link #connect()} opened, in order. */
    public List<WireClient> clients() {
        return List.copyOf(clients);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            for (WireClient client : clients) {
                assertEquals(List.of(), client.protocolErrors(), "responses in request order, all parseable");
            }
        } finally {
            try {
                for (WireClient client : clients) {
                    client.close();
                }
            } finally {
                clients.clear();
                if (broker != null) {
                    broker.close();
                    broker = null;
                }
            }
        }
    }

    /** A test method's {@link DemoBroker} parameter is {@link #get()}. */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == DemoBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        try {
            return get();
        } catch (IOException e) {
            throw new ParameterResolutionException("cannot start the broker", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ParameterResolutionException("interrupted starting the broker", e);
        }
    }
}
