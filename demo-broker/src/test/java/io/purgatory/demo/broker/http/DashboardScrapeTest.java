package io.purgatory.demo.broker.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /metrics} answered on a real event loop while its rendering is held on the renderer's
 * thread: other clients are served meanwhile, a scrape waiting for its rendering counts against the
 * scrapes answered at once, and one whose client left while it rendered frees its place. The
 * handler serves {@code /metrics} and the page's files here; it has no broker behind it.
 */
class DashboardScrapeTest {
    private static final int SOCKET_TIMEOUT_MS = 10_000;

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger renderings = new AtomicInteger();
    private final ExecutorService renderer = Executors.newSingleThreadExecutor();
    private final List<Socket> sockets = new ArrayList<>();
    private EventLoopGroup loop;
    private int port;

    @BeforeEach
    void start() throws Exception {
        RecentScrape scrapes = new RecentScrape(() -> {
            renderings.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "metric_total 1\n".getBytes(StandardCharsets.US_ASCII);
        }, renderer, 1_000, System::nanoTime);
        DashboardHandler handler = new DashboardHandler(null, new StaticAssets(), scrapes, null);
        loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Channel server = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        DashboardServer.serve(channel, new HttpConnectionGuard(DashboardServer.REQUEST_DEADLINE_MS, System::nanoTime), handler);
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        port = ((InetSocketAddress) server.localAddress()).getPort();
    }

    @AfterEach
    void stop() throws IOException {
        release.countDown();
        for (Socket socket : sockets) {
            socket.close();
        }
        renderer.shutdownNow();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** A new connection that sends {@code GET path} and closes its side after the answer. */
    private Socket get(String path) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        sockets.add(socket);
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** The whole answer on {@code socket}, read to its close. */
    private static String answer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }

    /** The sockets with some of an answer to read. */
    private static List<Socket> answered(List<Socket> sockets) throws IOException {
        List<Socket> answered = new ArrayList<>();
        for (Socket socket : sockets) {
            if (socket.getInputStream().available() > 0) {
                answered.add(socket);
            }
        }
        return answered;
    }

    @Test
    void otherClientsAreServedWhileARenderingRuns() throws Exception {
        Socket scraper = get("/metrics");
        await().atMost(Duration.ofSeconds(10)).until(() -> renderings.get() == 1);
        String page = answer(get("/dashboard.css"));
        assertTrue(page.startsWith("HTTP/1.1 200"), page);
        assertEquals(0, scraper.getInputStream().available(), "nothing written before the rendering is done");
        release.countDown();
        String scrape = answer(scraper);
        assertTrue(scrape.startsWith("HTTP/1.1 200") && scrape.endsWith("metric_total 1\n"), scrape);
    }

    @Test
    void scrapesWaitingForTheirRenderingCountAgainstTheLimit() throws Exception {
        List<Socket> scrapers = new ArrayList<>();
        for (int i = 0; i <= DashboardHandler.MAX_SCRAPES; i++) {
            scrapers.add(get("/metrics"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> renderings.get() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> answered(scrapers).size() == 1); // the one past the limit, at once
        List<Socket> answeredAtOnce = answered(scrapers);
        assertEquals(1, answeredAtOnce.size(), "only the scrape past the limit is answered while the rendering is held");
        Socket refused = answeredAtOnce.get(0);
        String refusal = answer(refused);
        assertTrue(refusal.startsWith("HTTP/1.1 503") && refusal.toLowerCase(Locale.ROOT).contains("retry-after: 1"), refusal);
        release.countDown();
        scrapers.remove(refused);
        for (Socket socket : scrapers) {
            assertTrue(answer(socket).startsWith("HTTP/1.1 200"));
        }
        assertEquals(1, renderings.get(), "one rendering for the scrapes that came while it ran");
    }

    @Test
    void aClientGoneWhileItsRenderingRanFreesItsPlace() throws Exception {
        for (int i = 0; i < DashboardHandler.MAX_SCRAPES; i++) {
            get("/metrics").close();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> renderings.get() == 1);
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> answer(get("/metrics")).startsWith("HTTP/1.1 200"));
    }
}
