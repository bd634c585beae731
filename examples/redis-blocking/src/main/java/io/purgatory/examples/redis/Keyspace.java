package io.purgatory.examples.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The server's one database: each key holds a list (a deque of values, never empty: a list whose
 * last value is popped is deleted, as in Redis) or a string. A list operation on a key holding a
 * string throws {@link WrongTypeException}, Redis's {@code WRONGTYPE}.
 *
 * <p>Thread-safe: every method runs under the object's monitor, which guards {@code keys}; each
 * is short and calls nothing outside this class, so it can be called under any other lock (the
 * hand-off's takers call {@link #pop} and {@link #move} under their waiter's lock). Callers tell
 * the hand-off about new values after the call, never under this monitor.
 */
final class Keyspace {

    /** A list's end: LEFT is its head (LPUSH, LPOP), RIGHT its tail. */
    enum End { LEFT, RIGHT }

    /** Values are a {@code Deque<byte[]>} (a list) or a {@code byte[]} (a string). */
    private final Map<String, Object> keys = new HashMap<>();

    /** Pushes values one by one at end; returns the list's length after. */
    synchronized int push(String key, End end, List<byte[]> values) {
        Deque<byte[]> list = listOrNull(key);
        if (list == null) {
            list = new ArrayDeque<>();
            keys.put(key, list);
        }
        for (byte[] value : values) {
            if (end == End.LEFT) {
                list.addFirst(value);
            } else {
                list.addLast(value);
            }
        }
        return list.size();
    }

    /** Removes and returns up to count values from end; empty if the key holds no list. */
    synchronized List<byte[]> pop(String key, End end, long count) {
        Deque<byte[]> list = listOrNull(key);
        List<byte[]> popped = new ArrayList<>();
        while (list != null && popped.size() < count && !list.isEmpty()) {
            popped.add(end == End.LEFT ? list.pollFirst() : list.pollLast());
        }
        removeIfEmpty(key, list);
        return popped;
    }

    /** Removes and returns the value at end, or null if the key holds no list. */
    synchronized byte @Nullable [] pop(String key, End end) {
        Deque<byte[]> list = listOrNull(key);
        if (list == null) {
            return null;
        }
        byte[] value = end == End.LEFT ? list.pollFirst() : list.pollLast();
        removeIfEmpty(key, list);
        return value;
    }

    /**
     * Pops the value at {@code from} of source and pushes it at {@code to} of destination (LMOVE),
     * as one step; returns it, or null if source holds no list.
     *
     * @throws WrongTypeException if either key holds a string; nothing moves
     */
    synchronized byte @Nullable [] move(String source, End from, String destination, End to) {
        Deque<byte[]> list = listOrNull(source);
        listOrNull(destination); // checks its type before anything moves
        if (list == null) {
            return null;
        }
        byte[] value = from == End.LEFT ? list.pollFirst() : list.pollLast();
        removeIfEmpty(source, list);
        push(destination, to, List.of(value));
        return value;
    }

    /**
     * A blocked LMOVE's step: as {@link #move}, but a destination that now holds a string leaves
     * the value where it is and returns null (the client keeps waiting), as Redis's does.
     */
    synchronized byte @Nullable [] moveIfList(String source, End from, String destination, End to) {
        if (keys.get(destination) instanceof byte[] || !(keys.get(source) instanceof Deque)) {
            return null;
        }
        return move(source, from, destination, to);
    }

    /** Like {@link #pop(String, End)}, but null rather than an exception if the key holds a string: a blocked pop's step. */
    synchronized byte @Nullable [] popIfList(String key, End end) {
        return keys.get(key) instanceof Deque ? pop(key, end) : null;
    }

    synchronized int length(String key) {
        Deque<byte[]> list = listOrNull(key);
        return list == null ? 0 : list.size();
    }

    /** Whether the key exists: for LPOP's "nil" against an empty answer. Throws if it holds a string. */
    synchronized boolean isList(String key) {
        return listOrNull(key) != null;
    }

    /** LRANGE: the values from start to stop, both included, negative indexes counted from the tail, clamped as Redis does. */
    synchronized List<byte[]> range(String key, long start, long stop) {
        Deque<byte[]> list = listOrNull(key);
        if (list == null) {
            return List.of();
        }
        int size = list.size();
        long from = start < 0 ? Math.max(0, size + start) : start;
        long to = stop < 0 ? size + stop : Math.min(stop, size - 1L);
        List<byte[]> values = new ArrayList<>();
        if (from > to || from >= size) {
            return values;
        }
        Iterator<byte[]> it = list.iterator();
        for (long i = 0; i <= to; i++) {
            byte[] value = it.next();
            if (i >= from) {
                values.add(value);
            }
        }
        return values;
    }

    /** Deletes the keys; returns how many existed. */
    synchronized int delete(List<String> names) {
        int deleted = 0;
        for (String key : names) {
            if (keys.remove(key) != null) {
                deleted++;
            }
        }
        return deleted;
    }

    synchronized void set(String key, byte[] value) {
        keys.put(key, value);
    }

    /** A string's value, or null if the key does not exist. Throws if it holds a list. */
    synchronized byte @Nullable [] get(String key) {
        Object value = keys.get(key);
        if (value instanceof Deque) {
            throw new WrongTypeException();
        }
        return (byte[]) value;
    }

    /** Redis's TYPE: list, string or none. */
    synchronized String type(String key) {
        Object value = keys.get(key);
        return value == null ? "none" : value instanceof Deque ? "list" : "string";
    }

    synchronized int size() {
        return keys.size();
    }

    synchronized void clear() {
        keys.clear();
    }

    @SuppressWarnings("unchecked") // only deques and byte arrays are put in
    private @Nullable Deque<byte[]> listOrNull(String key) {
        Object value = keys.get(key);
        if (value instanceof byte[]) {
            throw new WrongTypeException();
        }
        return (Deque<byte[]>) value;
    }

    private void removeIfEmpty(String key, @Nullable Deque<byte[]> list) {
        if (list != null && list.isEmpty()) {
            keys.remove(key);
        }
    }

    /** Redis's WRONGTYPE: a list operation on a string, or a string one on a list. */
    static final class WrongTypeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WrongTypeException() {
            super("WRONGTYPE Operation against a key holding the wrong kind of value", null, false, false);
        }
    }
}
