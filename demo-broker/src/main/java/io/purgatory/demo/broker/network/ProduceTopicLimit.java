package io.purgatory.demo.broker.network;

import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Caps the number of topic entries in a produce request before kafka-clients parses it. The parser
 * keeps a request's topics in a hash collection that accepts repeats, and each repeat of one name
 * probes past all the earlier ones: 3,000 copies of one 7-byte entry (21 KB) keep a thread parsing
 * for seconds, a 16 MB frame for hours. A producer lists each topic once, and only topics
 * this broker leads, so no well-formed client comes near {@value #MAX_TOPICS}.
 *
 * <p>Reads only the fields before the topic array (transactional id, acks, timeout), whose layout is
 * fixed by the produce schema: a compact or classic nullable string, an int16 and an int32.
 *
 * <p>Thread-safe: stateless.
 */
public final class ProduceTopicLimit {
    /** Most topic entries a produce request may list; more closes the connection. */
    static final int MAX_TOPICS = 100;

    /** Produce versions from this one on use compact (varint-sized) strings and arrays. */
    private static final short FIRST_FLEXIBLE_VERSION = 9;

    private ProduceTopicLimit() {
    }

    /**
     * The number of topic entries a produce body (positioned after the request header) declares,
     * or -1 when the fields before them do not read; the parser then refuses the body itself.
     */
    static int declaredTopics(ByteBuffer body, short version) {
        ByteBuffer in = body.duplicate();
        ByteBufferAccessor reader = new ByteBufferAccessor(in);
        try {
            boolean flexible = version >= FIRST_FLEXIBLE_VERSION;
            int transactionalIdLength = flexible ? reader.readUnsignedVarint() - 1 : reader.readShort();
            if (transactionalIdLength > 0) {
                in.position(in.position() + transactionalIdLength);
            }
            reader.readShort(); // acks
            reader.readInt(); // timeout
            return flexible ? reader.readUnsignedVarint() - 1 : reader.readInt();
        } catch (RuntimeException unreadable) {
            return -1;
        }
    }
}
