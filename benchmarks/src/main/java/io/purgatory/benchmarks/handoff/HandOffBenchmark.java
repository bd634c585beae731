package io.purgatory.benchmarks.handoff;

import io.purgatory.HandOff;
import io.purgatory.Handed;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hand-offs per second on a {@link HandOff}, one thread. {@code parkedTakeThenOffer}: a take parks
 * on a key (30 s timeout) behind {@code waiting} others (parked for ever), then an offer to the key hands its item to
 * the oldest: a {@code BLPOP} answered by an {@code LPUSH}, at a steady {@code waiting} waiters. An
 * offer costs one waiter whatever {@code waiting} is, so the scores for 0 and 10,000 should be close.
 * {@code offerThenTake}: the item is queued first and the take finds it ({@code LPUSH} then
 * {@code BLPOP}), no waiting.
 *
 * <p>Run (about 2 minutes on 2 cores):
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar HandOffBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Thread)
public class HandOffBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final List<String> KEY = List.of("jobs");
    private static final String ITEM = "job";

    /** Takes parked on the key besides the one each operation adds. */
    @Param({"0", "10000"})
    public int waiting;

    private HandOff<String, String> handOff;

    @Setup(Level.Iteration)
    public void setUp() {
        handOff = HandOff.<String, String>builder("HandOffBenchmark").build();
        for (int i = 0; i < waiting; i++) {
            handOff.take(KEY, HandOff.FOREVER);
        }
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
        handOff.close();
    }

    /** A take parks; an offer hands an item to the oldest parked take. Returns that take's future's answer. */
    @Benchmark
    public CompletableFuture<Handed<String, String>> parkedTakeThenOffer() {
        CompletableFuture<Handed<String, String>> take = handOff.take(KEY, TIMEOUT);
        handOff.offer(KEY.get(0), ITEM);
        return take;
    }

    /** An item is queued, then a take finds it at once (on a hand-off of its own, with no take parked). */
    @Benchmark
    public Handed<String, String> offerThenTake(Queued queued) {
        queued.handOff.offer(KEY.get(0), ITEM);
        return queued.handOff.take(KEY, TIMEOUT).join();
    }

    /** A hand-off with no take parked. */
    @State(Scope.Thread)
    public static class Queued {
        HandOff<String, String> handOff;

        @Setup(Level.Iteration)
        public void setUp() {
            handOff = HandOff.<String, String>builder("HandOffBenchmark-queued").build();
        }

        @TearDown(Level.Iteration)
        public void tearDown() {
            handOff.close();
        }
    }
}
