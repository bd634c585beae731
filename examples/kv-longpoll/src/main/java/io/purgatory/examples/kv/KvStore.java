package io.purgatory.examples.kv;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store: values by key, each with the index of its last write (Consul's {@code ModifyIndex}).
 * Indexes come from one counter for the whole store, so a key's index only grows and no two writes
 * share one.
 *
 * <p>Thread-safe: the map is concurrent; a write takes its index inside the map's per-key
 * {@code compute}, so two writes to one key store their indexes in the order they took them.
 */
final class KvStore {

    /** A value and the index of the write that stored it. Immutable. */
    record Entry(String value, long index) {
    }

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong lastIndex = new AtomicLong();

    /** Stores value under key with the next index, and returns that index. */
    long put(String key, String value) {
        return entries.compute(key, (k, old) -> new Entry(value, lastIndex.incrementAndGet())).index();
    }

    /** The key's entry, or null. */
    Entry get(String key) {
        return entries.get(key);
    }

    /** The index of key's last write; 0 for a key never written. The position {@code Waiters} wait on. */
    long indexOf(String key) {
        Entry entry = entries.get(key);
        return entry == null ? 0 : entry.index();
    }
}
