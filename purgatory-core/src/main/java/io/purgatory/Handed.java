package io.purgatory;

import org.jspecify.annotations.Nullable;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * How a {@link HandOff} take ended: with an item of one of its keys ({@link Outcome#TAKEN}), or with
 * none ({@link Outcome#TIMED_OUT}, {@link Outcome#CLOSED}). A take whose future its caller cancelled
 * has no {@code Handed}: the future is cancelled. Immutable, hence thread-safe.
 *
 * @param <K> the keys
 * @param <V> the items
 */
public final class Handed<K, V> {

    /** How a take ended. */
    public enum Outcome {
        /** The waiter took an item: {@link #key()} and {@link #item()} say which. */
        TAKEN,
        /** The timeout passed with no item for the waiter. */
        TIMED_OUT,
        /** The hand-off was closed (or was closed when the take began). */
        CLOSED
    }

    private static final Handed<?, ?> TIMED_OUT = new Handed<>(Outcome.TIMED_OUT, null, null);
    private static final Handed<?, ?> CLOSED = new Handed<>(Outcome.CLOSED, null, null);

    private final Outcome outcome;
    private final @Nullable K key;
    private final @Nullable V item;

    private Handed(Outcome outcome, @Nullable K key, @Nullable V item) {
        this.outcome = outcome;
        this.key = key;
        this.item = item;
    }

    /** An item taken from key. */
    static <K, V> Handed<K, V> taken(K key, V item) {
        return new Handed<>(Outcome.TAKEN, Objects.requireNonNull(key, "key"), Objects.requireNonNull(item, "item"));
    }

    /** No item: the take timed out, or the hand-off closed. */
    @SuppressWarnings("unchecked") // holds no K nor V
    static <K, V> Handed<K, V> none(Outcome outcome) {
        if (outcome == Outcome.TAKEN) {
            throw new IllegalArgumentException("a take that took an item has its key and item");
        }
        return (Handed<K, V>) (outcome == Outcome.TIMED_OUT ? TIMED_OUT : CLOSED);
    }

    /**
     * How the take ended.
     *
     * @return TAKEN, TIMED_OUT or CLOSED
     */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * Whether the waiter took an item ({@link Outcome#TAKEN}).
     *
     * @return true if it did
     */
    public boolean isTaken() {
        return outcome == Outcome.TAKEN;
    }

    /**
     * The key the item was taken from.
     *
     * @return the key
     * @throws NoSuchElementException if no item was taken
     */
    public K key() {
        if (key == null) {
            throw new NoSuchElementException("no item was taken: " + outcome);
        }
        return key;
    }

    /**
     * The item taken.
     *
     * @return the item
     * @throws NoSuchElementException if no item was taken
     */
    public V item() {
        if (item == null) {
            throw new NoSuchElementException("no item was taken: " + outcome);
        }
        return item;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Handed<?, ?> h && outcome == h.outcome && Objects.equals(key, h.key) && Objects.equals(item, h.item);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, key, item);
    }

    @Override
    public String toString() {
        return outcome == Outcome.TAKEN ? "TAKEN[" + key + ": " + item + "]" : outcome.name();
    }
}
