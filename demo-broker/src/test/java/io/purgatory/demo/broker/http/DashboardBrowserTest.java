package io.purgatory.demo.broker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.FetchTest;
import io.purgatory.demo.broker.RawMember;
import io.purgatory.demo.broker.WireClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import static io.purgatory.demo.broker.http.Browser.page;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard in a real browser ({@link Browser}: headless Chromium, driven through Debian's
 * chromedriver by Selenium), against an in-process broker under {@code acks=-1} load. The page loads without
 * console errors, its counters move, the fetch chart stays hidden until a consumer fetches and then shows it in its totals,
 * clicking "stall" on follower 2 makes the timed-out count rise, then follower 2 leave the ISR (in the Partitions table and
 * the in-sync replicas chart), and "resume" brings acks back and follower 2 into the ISR, twice. At 1000 and at 1400 pixels
 * the Partitions table shows every column whole, none behind a scrollbar, and a legend says what its colours mean. A group
 * member that never heartbeats shows as its generation's leader, then as expired in the list under the groups table. While
 * it is stalled the charts' legends name the shaded band "replica 2 stalled", and the expiry-lateness tile shows the mean
 * lateness of the last minute's timeouts, no more than the highest maximum in {@code /api/state}. A screenshot taken
 * during the second stall, the window fitted to the page, is written to {@code target/dashboard-stall.png}.
 *
 * <p>The browser is required, never skipped: without it the test fails and says how to install
 * it ({@code .ci/run} does). {@code -Dchromium.binary} and {@code -Dchromedriver.binary} point
 * elsewhere; Selenium Manager is never asked to download anything.
 */
@Tag("integration")
class DashboardBrowserTest {
    private static final Path SCREENSHOT = Path.of("target", "dashboard-stall.png");
    private static final short ACKS_ALL = -1;
    private static final short FETCH_BY_NAME = 12;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic("demo", 3).followers(2).replicaLag(3, 2)
            .replicaLagTimeMaxMs(2_000) // a stalled follower leaves the ISR after 2 to 3 s
            .groupSessionTimeoutMs(1_000, 300_000).groupInitialRebalanceDelayMs(100)); // a member whose session ends soon
    private DemoBroker broker;
    private DashboardServer dashboard;
    private WireClient client;
    private ScheduledExecutorService load;
    private Browser browser;
    private WebDriver driver;

    @BeforeAll
    static void browserIsInstalled() {
        Browser.requireInstalled();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (load != null) {
            load.shutdownNow();
            assertTrue(load.awaitTermination(5, TimeUnit.SECONDS));
        }
        if (dashboard != null) {
            dashboard.close();
        }
    }

    @Test
    void stallingAFollowerFromThePageMakesTimeoutsRiseAndResumingBringsAcksBack() throws Exception {
        broker = brokers.get();
        dashboard = DashboardServer.start(broker.replicaManager(), broker.coordinator(), broker.stats(), "127.0.0.1", 0);
        client = brokers.connect();
        startLoad();
        browser = Browser.start();
        driver = browser.driver();
        driver.get(dashboard.url());

        page().until(() -> text("status").equals("live"));
        long ackedAtFirst = page().until(() -> count("acked-total"), acked -> acked > 0);
        page().until(() -> count("acked-total") > ackedAtFirst); // the counters move
        assertEquals("fetching", replicaState(2));
        for (int width : new int[] {1000, 1400}) {
            browser.resizeTo(width);
            page().until(this::partitionsColumnsHiddenOrClipped, List::isEmpty);
        }

        // a member that joins, syncs and heartbeats until the page shows it as the leader of generation 1 (however
        // loaded the machine), then falls silent and is expired after its 3 s session
        RawMember silent = new RawMember(brokers.connect(), "silent-group", 3_000, 10_000);
        assertEquals(Errors.NONE.code(), silent.join("demo").errorCode());
        assertEquals(Errors.NONE.code(), silent.sync().errorCode());
        try (RawMember.Heartbeats heartbeats = silent.heartbeatEvery(200)) {
            page().until(() -> text("groups"), groups -> groups.contains("(leader)"));
        }
        page().until(() -> text("group-events"), events -> events.contains("group silent-group: member ")
                && events.contains(" expired: no heartbeat within its 3,000 ms session"));
        assertEquals(1, broker.coordinator().membersExpired(), "the page's event is the broker's expiry");

        assertFalse(driver.findElement(By.id("chart-fetches")).isDisplayed(), "no fetch yet: the fetch chart is hidden");
        assertTrue(text("partitions-legend").contains("high watermark behind the leader's end offset"), text("partitions-legend"));
        page().until(() -> text("legend-isr"), shown -> shown.contains("smallest ISR of any partition"));
        List<String> purgatoryColours = page().until(() -> driver.findElements(By.cssSelector("#legend-parked .legend-line i")).stream()
                .map(swatch -> swatch.getCssValue("background-color")).toList(), colours -> colours.size() == 5);
        assertEquals(5, Set.copyOf(purgatoryColours).size(), "one colour per purgatory: " + purgatoryColours);
        client.send(new FetchRequest(FetchTest.fetch(500, 1, 0), FETCH_BY_NAME)); // the load commits records soon
        page().until(() -> count("fetch-data-total") == 1);
        assertTrue(driver.findElement(By.id("chart-fetches")).isDisplayed(), "a consumer fetched: the fetch chart shows");
        assertTrue(text("legend-fetches").contains("empty at max.wait.ms"), text("legend-fetches"));

        stallResumeCycle();
        stallResumeCycle();

        assertEquals(List.of(), browser.consoleErrors(), "console errors");
    }

    /**
     * Stall replica 2 from the page, see timeouts rise and replica 2 leave the ISR; resume it, see acks return and replica 2
     * rejoin. Screenshots the stall.
     */
    private void stallResumeCycle() throws IOException, InterruptedException {
        long timedOutBefore = count("timed-out-total");
        click(2, "stall");
        page().until(() -> replicaState(2).equals("stalled"));
        assertTrue(broker.followers().isStalled(2));
        // 100 produces a second, each with a 500 ms timeout: a second of stall times out dozens
        page().until(() -> count("timed-out-total") > timedOutBefore + 50);
        for (String legend : List.of("legend-outcomes", "legend-fetches", "legend-isr", "legend-parked", "legend-lateness")) {
            page().until(() -> text(legend), shown -> shown.contains("replica 2 stalled"));
            assertFalse(text(legend).contains("replica 1 stalled"), text(legend));
        }
        highestP99InTheLatenessLegend(); // one entry per purgatory
        // the tile: the mean lateness of the last minute's timeouts, which no timeout's lateness since start exceeds
        page().until(() -> text("lateness-detail"), detail -> detail.matches("mean of [\\d,]+ timeouts in the last \\d+ s"));
        double recentMeanMs = Double.parseDouble(text("lateness-recent").replace(" ms", ""));
        assertTrue(recentMeanMs <= highestMaxInTheState(), text("lateness-recent"));
        // replica 2 has not caught up for replica.lag.time.max.ms: out of the ISR, in the table and in the chart's legend
        page().until(() -> text("partitions"), table -> table.contains("out of ISR") && table.contains("[0, 1]"));
        page().until(() -> text("legend-isr"), shown -> shown.contains("smallest ISR of any partition 2 replicas"));

        browser.screenshot(SCREENSHOT);

        click(2, "resume");
        page().until(() -> replicaState(2).equals("fetching"));
        page().until(() -> text("partitions"), table -> !table.contains("out of ISR") && !table.contains("[0, 1]")
                && table.split("\\[0, 1, 2]", -1).length == 4); // every partition's ISR whole again
        page().until(() -> text("legend-isr"), shown -> shown.contains("smallest ISR of any partition 3 replicas"));
        long ackedAtResume = count("acked-total");
        page().until(() -> count("acked-total") > ackedAtResume + 100);
        long timedOutAfterResume = page().until(() -> count("timed-out-total"), any -> true);
        page().until(() -> count("acked-total") > ackedAtResume + 200); // another second or more of acks...
        assertEquals(timedOutAfterResume, count("timed-out-total"), "...and no more timeouts");
    }

    /**
     * The Partitions table's columns that do not show whole in its panel: those whose header reaches
     * past the panel's right edge (behind a scrollbar), and any when the panel scrolls sideways.
     */
    @SuppressWarnings("unchecked")
    private List<String> partitionsColumnsHiddenOrClipped() {
        return (List<String>) ((JavascriptExecutor) driver).executeScript("""
                const panel = document.getElementById('partitions').closest('.panel');
                const edge = panel.getBoundingClientRect().right;
                const headers = Array.from(document.querySelectorAll('#partitions th'));
                if (headers.length < 9) {
                    return ['not rendered yet: ' + headers.length + ' columns'];
                }
                const hidden = headers.filter((th) => th.getBoundingClientRect().right > edge).map((th) => th.textContent);
                return panel.scrollWidth > panel.clientWidth ? hidden.concat(['(the panel scrolls sideways)']) : hidden;
                """);
    }

    /** The highest value of the lateness chart's legend, which has one entry per purgatory ({@code "produce p99 4 ms"}...). */
    private long highestP99InTheLatenessLegend() {
        Matcher entry = Pattern.compile("([\\w-]+) p99 (\\d+) ms").matcher(text("legend-lateness"));
        List<String> purgatories = new ArrayList<>();
        long highest = 0;
        while (entry.find()) {
            purgatories.add(entry.group(1));
            highest = Math.max(highest, Long.parseLong(entry.group(2)));
        }
        assertEquals(List.of("produce", "fetch", "delete-records", "rebalance", "heartbeat"), purgatories, text("legend-lateness"));
        return highest;
    }

    /** The highest {@code expiryLateness.maxMs} of the purgatories in {@code /api/state}. */
    private long highestMaxInTheState() throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(dashboard.url()).resolve("/api/state")).build(), HttpResponse.BodyHandlers.ofString());
        long highest = 0;
        for (JsonNode purgatory : JSON.readTree(response.body()).get("purgatories")) {
            highest = Math.max(highest, purgatory.get("expiryLateness").get("maxMs").asLong());
        }
        return highest;
    }

    /** 100 acks=-1 produces a second with a 500 ms timeout, round-robin over the partitions. */
    private void startLoad() {
        AtomicInteger sent = new AtomicInteger();
        load = Executors.newSingleThreadScheduledExecutor(runnable -> new Thread(runnable, "browser-test-load"));
        load.scheduleAtFixedRate(() -> {
            try {
                client.send(WireClient.produce("demo", sent.getAndIncrement() % 3, ACKS_ALL, 500, 1));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, 0, 10, TimeUnit.MILLISECONDS);
    }

    private void click(int replicaId, String action) {
        driver.findElement(By.cssSelector("button[data-replica='" + replicaId + "'][data-action='" + action + "']")).click();
    }

    private String replicaState(int replicaId) {
        return driver.findElement(By.cssSelector("#replicas tr[data-replica='" + replicaId + "'] .state")).getText();
    }

    private String text(String id) {
        return browser.text(id);
    }

    private long count(String id) {
        return Long.parseLong(text(id).replace(",", "").replace(" ms", ""));
    }
}
