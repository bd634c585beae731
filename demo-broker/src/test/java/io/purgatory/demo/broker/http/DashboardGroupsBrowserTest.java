package io.purgatory.demo.broker.http;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.GroupConsumer;
import io.purgatory.demo.broker.RawMember;
import io.purgatory.demo.broker.WireClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import static io.purgatory.demo.broker.http.Browser.page;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard's "Consumer groups" panel in a real browser ({@link Browser}), as a person watching
 * it would check: two real {@code KafkaConsumer}s of group {@code g} show as a stable group with one
 * row per member and every partition assigned; a third member (the protocol by hand, 2 s session)
 * joins, and the page shows the next generation with three members; it then stops heartbeating
 * without leaving, and the page shows it gone after its {@code DelayedHeartbeat} expired, the two
 * consumers holding every partition again, with committed offsets and lag. A screenshot of the
 * page with the three-member group is written to {@code target/dashboard-groups.png} (the one in
 * docs/demo.md).
 *
 * <p>The page rebuilds the table on every sample (each second), so the test reads it whole, in one
 * script ({@link #table()}), and takes what it asserts from the very reading that showed the group
 * stable: cell by cell, a reading could span two renders. The third member heartbeats until the
 * page has shown it, so that no load on the machine can make its session end before the test
 * looked.
 */
@Tag("integration")
class DashboardGroupsBrowserTest {
    private static final Path SCREENSHOT = Path.of("target", "dashboard-groups.png");
    private static final short ACKS_ALL = -1;
    private static final String TOPIC = "demo";

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic(TOPIC, 3).followers(2).replicaLag(3, 2)
            .groupSessionTimeoutMs(500, 1_800_000).groupInitialRebalanceDelayMs(300));
    private final List<GroupConsumer> consumers = new ArrayList<>();
    private DashboardServer dashboard;
    private Browser browser;

    @BeforeAll
    static void browserIsInstalled() {
        Browser.requireInstalled();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (browser != null) {
            browser.close();
        }
        for (GroupConsumer consumer : consumers) {
            consumer.close();
        }
        if (dashboard != null) {
            dashboard.close();
        }
    }

    @Test
    void thePanelShowsARebalanceAddAMemberAndACrashedMemberExpire() throws Exception {
        DemoBroker broker = brokers.get();
        dashboard = DashboardServer.start(broker.replicaManager(), broker.coordinator(), broker.stats(), "127.0.0.1", 0);
        WireClient producer = brokers.connect();
        for (int partition = 0; partition < 3; partition++) {
            ProduceResponse response = (ProduceResponse) producer.send(WireClient.produce(TOPIC, partition, ACKS_ALL, 5_000, 10))
                    .get(10, TimeUnit.SECONDS).response();
            assertEquals(Map.of(Errors.NONE, 1), response.errorCounts());
        }
        browser = Browser.start();
        browser.driver().get(dashboard.url());
        page().until(() -> browser.text("status").equals("live"));
        assertTrue(browser.driver().findElement(By.id("no-groups")).isDisplayed(), "no group yet");

        ConcurrentLinkedQueue<GroupConsumer.Read> reads = new ConcurrentLinkedQueue<>();
        consumers.add(new GroupConsumer("a", broker.port(), "g", TOPIC, reads, Map.of()));
        consumers.add(new GroupConsumer("b", broker.port(), "g", TOPIC, reads, Map.of()));
        List<List<String>> shown = page().until(this::table, t -> stableWith(t, List.of("a", "b")));
        int generation = Integer.parseInt(shown.get(0).get(2));
        page().until(this::table, t -> t.get(0).get(7).contains("lag 0")); // they read and commit: the offsets column fills in

        RawMember crashing = new RawMember(brokers.connect(), "g", 2_000, 10_000);
        assertEquals(Errors.NONE.code(), crashing.join(TOPIC).errorCode()); // the consumers rejoin on their next heartbeat
        assertEquals(Errors.NONE.code(), crashing.sync().errorCode());
        try (RawMember.Heartbeats heartbeats = crashing.heartbeatEvery(200)) {
            shown = page().until(this::table, t -> stableWith(t, List.of("a", "b", "wire-client")));
            assertEquals(generation + 1, Integer.parseInt(shown.get(0).get(2)), "a rebalance: the next generation");
            browser.screenshot(SCREENSHOT);
        }

        // it sends no more heartbeats: after its 2 s session the DelayedHeartbeat expires it and the others take over
        shown = page().atMost(Duration.ofSeconds(30)).until(this::table, t -> stableWith(t, List.of("a", "b")));
        assertEquals(1, broker.coordinator().membersExpired());
        assertEquals(generation + 2, Integer.parseInt(shown.get(0).get(2)), "another rebalance");
        assertEquals(List.of(), browser.consoleErrors(), "console errors");
    }

    /**
     * Whether the table shows group g Stable with exactly these members (by client id, in any order)
     * and every partition of the topic assigned to one of them.
     */
    private static boolean stableWith(List<List<String>> rows, List<String> clientIds) {
        if (rows.size() != clientIds.size() || !rows.get(0).get(0).equals("g") || !rows.get(0).get(1).equals("Stable")) {
            return false;
        }
        List<String> members = new ArrayList<>();
        List<String> assigned = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            int first = i == 0 ? 4 : 0; // the group's cells span its rows: only the first row has them
            members.add(rows.get(i).get(first).split(",")[0]);
            String partitions = rows.get(i).get(first + 1);
            if (!partitions.equals("–")) {
                assigned.addAll(List.of(partitions.split(", ")));
            }
        }
        assigned.sort(null);
        return members.containsAll(clientIds) && clientIds.containsAll(members)
                && assigned.equals(List.of(TOPIC + "-0", TOPIC + "-1", TOPIC + "-2"));
    }

    /**
     * The groups table's rows, each the texts of its cells, read by one script: the page renders
     * between two scripts, never during one, so this is the table as one render left it.
     */
    @SuppressWarnings("unchecked")
    private List<List<String>> table() {
        return (List<List<String>>) ((JavascriptExecutor) browser.driver()).executeScript(
                "return Array.from(document.querySelectorAll('#groups tbody tr'), r => Array.from(r.cells, c => c.innerText.trim()));");
    }
}
