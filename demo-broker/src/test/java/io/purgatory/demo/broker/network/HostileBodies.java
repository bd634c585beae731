package io.purgatory.demo.broker.network;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.SchemaException;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Request bodies with one array of N entries whose keys a hostile client picks (all equal, distinct
 * with one hash, or distinct), written with the generic {@link Schema} so that building them costs
 * linear time (kafka-clients' own builders would probe as the broker's parser does).
 */
public final class HostileBodies {
    /** How the keys of the array's entries are chosen. */
    public enum Keys {
        /** Every entry has the same key. */
        EQUAL,
        /** Distinct keys of one {@code String} hash (distinct integers of one slot, for an integer key). */
        ONE_HASH,
        /** Distinct ordinary keys. */
        DISTINCT
    }

    private HostileBodies() {
    }

    /**
     * A body of {@code api} in {@code version} whose array at {@code path} (field names, dot-separated)
     * has {@code n} entries keyed by {@code keyField} (null: the entries are the strings themselves);
     * each array on the way holds one entry, every other field its zero value.
     */
    public static ByteBuffer body(ApiKeys api, short version, String path, String keyField, Keys keys, int n) {
        Schema schema = api.messageType.requestSchemas()[version];
        Struct root = new Struct(schema);
        Struct parent = root;
        String[] names = path.split("\\.");
        for (int i = 0; i < names.length - 1; i++) {
            Struct child = parent.instance(names[i]);
            fillUnset(child, "t" + i);
            parent.set(names[i], new Object[] {child});
            parent = child;
        }
        String last = names[names.length - 1];
        Object[] entries = new Object[n];
        List<String> strings = strings(keys, n);
        for (int i = 0; i < n; i++) {
            if (keyField == null) {
                entries[i] = strings.get(i);
                continue;
            }
            Struct entry = parent.instance(last);
            Field keyDef = entry.schema().get(keyField).def;
            entry.set(keyField, keyDef.type == Type.INT32 ? (Object) integer(keys, n, i) : strings.get(i));
            fillUnset(entry, "v");
            entries[i] = entry;
        }
        parent.set(last, entries);
        fillUnset(parent, "p");
        fillUnset(root, "g");
        ByteBuffer buffer = ByteBuffer.allocate(root.sizeOf());
        root.writeTo(buffer);
        return buffer.flip();
    }

    /** {@code body} behind a request header: a whole frame's contents. */
    public static ByteBuffer frame(ApiKeys api, short version, int correlationId, ByteBuffer body) {
        RequestHeader header = new RequestHeader(api, version, "hostile", correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.data().size(cache, header.headerVersion());
        ByteBuffer frame = ByteBuffer.allocate(headerSize + body.remaining());
        header.data().write(new ByteBufferAccessor(frame), cache, header.headerVersion());
        frame.put(body.duplicate());
        return frame.flip();
    }

    /** {@code n} keys as {@code keys} says. */
    public static List<String> strings(Keys keys, int n) {
        List<String> out = new ArrayList<>(n);
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, n - 1));
        for (int i = 0; i < n; i++) {
            switch (keys) {
                case EQUAL -> out.add("x");
                case DISTINCT -> out.add("topic-" + i);
                case ONE_HASH -> { // "Aa" and "BB" share a hash, so do all strings made of them of one length
                    StringBuilder name = new StringBuilder();
                    for (int b = 0; b < bits; b++) {
                        name.append(((i >> b) & 1) == 0 ? "Aa" : "BB");
                    }
                    out.add(name.toString());
                }
                default -> throw new IllegalArgumentException(keys.name());
            }
        }
        return out;
    }

    private static int integer(Keys keys, int n, int i) {
        return switch (keys) {
            case EQUAL -> 7;
            case ONE_HASH -> i * (2 * n + 1); // distinct, all in slot 0 of the parser's collection
            case DISTINCT -> i;
        };
    }

    /** Gives every field not set its zero value ({@code name} for a string field, so names are valid). */
    private static void fillUnset(Struct struct, String name) {
        for (BoundField field : struct.schema().fields()) {
            try {
                struct.get(field);
            } catch (SchemaException unset) {
                struct.set(field, zero(field.def.type, name));
            }
        }
    }

    private static Object zero(Type type, String name) {
        if (type.isArray()) {
            return new Object[0];
        }
        if (type.isNullable()) {
            return null;
        }
        if (type == Type.STRING || type == Type.COMPACT_STRING) {
            return name;
        }
        if (type == Type.INT8) {
            return (byte) 0;
        }
        if (type == Type.INT16) {
            return (short) 0;
        }
        if (type == Type.INT32) {
            return 0;
        }
        if (type == Type.INT64) {
            return 0L;
        }
        if (type == Type.BOOLEAN) {
            return false;
        }
        if (type == Type.UUID) {
            return Uuid.ZERO_UUID;
        }
        if (type == Type.BYTES || type == Type.COMPACT_BYTES) {
            return ByteBuffer.allocate(0);
        }
        return new TreeMap<Integer, Object>(); // tagged fields
    }
}
