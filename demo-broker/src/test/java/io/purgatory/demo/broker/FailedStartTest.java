package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A start that cannot bind releases everything it started: threads, the purgatory and its JMX name. */
@Tag("integration")
class FailedStartTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();

    @Test
    void aStartOnATakenPortLeavesNoThreadsAndNoMBeans() throws Exception {
        Set<String> threadsBefore = brokerThreads();
        Set<ObjectName> mbeansBefore = purgatoryMBeans();
        try (ServerSocket taken = new ServerSocket(0)) {
            for (int attempt = 0; attempt < 3; attempt++) {
                assertThrows(BindException.class, () -> DemoBroker.start(BrokerConfig.builder().port(taken.getLocalPort()).build()));
            }
        }
        Waits.soon().untilAsserted(() -> assertEquals(threadsBefore, brokerThreads()));
        assertEquals(mbeansBefore, purgatoryMBeans());
        // and the next broker gets the purgatories' JMX names (produce, fetch, delete-records, rebalance, heartbeat)
        brokers.get();
        assertEquals(mbeansBefore.size() + 5, purgatoryMBeans().size());
    }

    /** The threads a broker starts: event loops, the follower thread, the purgatories' timers and reapers. */
    private static Set<String> brokerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(t -> t.getName() + "#" + t.getId())
                .filter(name -> name.startsWith("broker-") || name.startsWith("replica-fetcher") || name.startsWith("produce-") || name.startsWith("fetch-")
                        || name.startsWith("delete-records-") || name.startsWith("rebalance-") || name.startsWith("heartbeat-"))
                .collect(Collectors.toSet());
    }

    private static Set<ObjectName> purgatoryMBeans() throws Exception {
        return ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("io.purgatory:*"), null);
    }
}
