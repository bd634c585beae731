package io.purgatory.examples.redis;

import io.purgatory.HandOff;
import io.purgatory.Handed;
import io.purgatory.examples.redis.Keyspace.End;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * BLPOP, BRPOP, BLMOVE and BRPOPLPUSH: the pops that wait, as {@link HandOff} waiters over the
 * {@link Keyspace}'s lists. A pop is a take with a {@link HandOff.Taker} that pops the list's head
 * (BLPOP), tail (BRPOP), or moves its value to the destination (BLMOVE); every command that adds to
 * a list calls {@link #offered}. So the hand-off's guarantees are Redis's: a value goes to one
 * client only; clients blocked on a key are served in the order they blocked; a client blocked on
 * several keys takes from the first of them that has a value, in the order it named them; a client
 * whose pop timed out, or who went away (its future is cancelled), takes nothing.
 *
 * <p>A pop that finds a value answers at once, without waiting; otherwise it returns a
 * {@link Parked} pop, answered later. A value a BLMOVE moves is offered to its destination's
 * clients as soon as the move is done. Thread-safe: the keyspace and the hand-off are.
 */
final class BlockingPops {

    private final Keyspace keyspace;
    private final HandOff<String, byte[]> handOff;
    private final ServerStats stats;

    BlockingPops(Keyspace keyspace, HandOff<String, byte[]> handOff, ServerStats stats) {
        this.keyspace = keyspace;
        this.handOff = handOff;
        this.stats = stats;
    }

    /** A value was added to key's list: the clients blocked on it take what they can, oldest first. */
    void offered(String key) {
        handOff.offered(key);
    }

    /** BLPOP and BRPOP: key [key ...] timeout; answered [key, value], or a null on timeout. */
    @Nullable Parked pop(Command c, End end, Reply reply) {
        Duration timeout = Arguments.timeout(c.text(c.size() - 1));
        List<String> keys = new ArrayList<>();
        for (int i = 1; i < c.size() - 1; i++) {
            keys.add(c.text(i));
        }
        checkFirstExistingIsList(keys);
        CompletableFuture<Handed<String, byte[]>> future = handOff.take(keys, timeout, key -> keyspace.popIfList(key, end));
        return answer(future, BlockingPops::keyAndValue, reply);
    }

    /** BLMOVE and BRPOPLPUSH: source destination ... timeout; answered with the value moved, or a null on timeout. */
    @SuppressWarnings("FutureReturnValueIgnored") // the dependent stage only offers the moved value on
    @Nullable Parked move(Command c, End from, End to, String timeoutText, Reply reply) {
        Duration timeout = Arguments.timeout(timeoutText);
        String source = c.text(1);
        String destination = c.text(2);
        if (keyspace.isList(source)) { // a value is there: LMOVE's checks and errors (WRONGTYPE for a string destination)
            byte[] value = keyspace.move(source, from, destination, to);
            if (value != null) {
                offered(destination);
                reply.bulk(value);
                return null;
            }
        }
        CompletableFuture<Handed<String, byte[]>> future = handOff.take(List.of(source), timeout,
                key -> keyspace.moveIfList(key, from, destination, to));
        future.thenAccept(handed -> {
            if (handed.isTaken()) {
                offered(destination); // the hand-off completes futures holding none of its locks
            }
        });
        return answer(future, BlockingPops::value, reply);
    }

    /** Writes the answer now if the hand-off gave one at once (a value was there), else parks. */
    private @Nullable Parked answer(CompletableFuture<Handed<String, byte[]>> future,
            BiConsumer<Handed<String, byte[]>, Reply> writer, Reply reply) {
        Handed<String, byte[]> now = future.getNow(null);
        if (now != null) {
            writer.accept(now, reply);
            return null;
        }
        return new Parked(future, (handed, out) -> {
            if (handed.isTaken()) {
                stats.handedOff.increment();
            } else if (handed.outcome() == Handed.Outcome.TIMED_OUT) {
                stats.timedOut.increment();
            }
            writer.accept(handed, out);
        });
    }

    private static void keyAndValue(Handed<String, byte[]> handed, Reply reply) {
        if (handed.isTaken()) {
            reply.array(2);
            reply.bulk(handed.key());
            reply.bulk(handed.item());
        } else {
            reply.nullArray();
        }
    }

    private static void value(Handed<String, byte[]> handed, Reply reply) {
        if (handed.isTaken()) {
            reply.bulk(handed.item());
        } else {
            reply.nullArray(); // as Redis answers a timed-out BLMOVE: *-1, not $-1
        }
    }

    /** Redis's check before a pop waits: the first of its keys that exists must hold a list (WRONGTYPE otherwise). */
    private void checkFirstExistingIsList(List<String> keys) {
        for (String key : keys) {
            if (keyspace.isList(key)) {
                return;
            }
        }
    }
}
