package io.purgatory.examples.redis;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes replies in the connection's protocol: RESP2, or RESP3 after {@code HELLO 3}. The two
 * differ where RESP3 has a type of its own: a null ({@code _} rather than {@code $-1} or
 * {@code *-1}), a map ({@code %} rather than an array of twice as many elements) and a verbatim
 * text ({@code =} rather than a bulk string). Not thread-safe: used by one event loop, for one
 * reply at a time.
 */
final class Reply {

    private static final byte[] CRLF = {'\r', '\n'};

    private final ByteBuf out;
    private final boolean resp3;

    Reply(ByteBuf out, int protocol) {
        this.out = out;
        this.resp3 = protocol == 3;
    }

    ByteBuf buffer() {
        return out;
    }

    void ok() {
        simple("OK");
    }

    void simple(String text) {
        out.writeByte('+').writeCharSequence(text, StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
    }

    /**
     * An error as Redis words it: {@code ERR } first unless the message starts with its own code
     * (an upper-case word such as {@code WRONGTYPE} or {@code NOPROTO}); line breaks become spaces.
     */
    void error(String message) {
        String line = message.replace('\r', ' ').replace('\n', ' ');
        out.writeByte('-');
        if (!startsWithCode(line)) {
            out.writeCharSequence("ERR ", StandardCharsets.ISO_8859_1);
        }
        out.writeCharSequence(line, StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
    }

    private static boolean startsWithCode(String line) {
        int space = line.indexOf(' ');
        if (space <= 0) {
            return false;
        }
        for (int i = 0; i < space; i++) {
            if (!Character.isUpperCase(line.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    void integer(long value) {
        out.writeByte(':').writeCharSequence(Long.toString(value), StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
    }

    void bulk(byte[] value) {
        header('$', value.length);
        out.writeBytes(value).writeBytes(CRLF);
    }

    void bulk(String text) {
        bulk(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** No value where a string was asked for: RESP2's {@code $-1}. */
    void nullBulk() {
        if (resp3) {
            out.writeCharSequence("_\r\n", StandardCharsets.ISO_8859_1);
        } else {
            out.writeCharSequence("$-1\r\n", StandardCharsets.ISO_8859_1);
        }
    }

    /** No value where an array was asked for (a blocking pop's timeout): RESP2's {@code *-1}. */
    void nullArray() {
        if (resp3) {
            out.writeCharSequence("_\r\n", StandardCharsets.ISO_8859_1);
        } else {
            out.writeCharSequence("*-1\r\n", StandardCharsets.ISO_8859_1);
        }
    }

    /** The start of an array of {@code length} elements, written next. */
    void array(int length) {
        header('*', length);
    }

    void array(List<byte[]> values) {
        array(values.size());
        for (byte[] value : values) {
            bulk(value);
        }
    }

    /** The start of a map of {@code entries} key-value pairs, written next, key then value. */
    void map(int entries) {
        if (resp3) {
            header('%', entries);
        } else {
            header('*', 2L * entries);
        }
    }

    /** Text for a person to read (INFO's): a verbatim string in RESP3. */
    void text(String text) {
        if (resp3) {
            byte[] bytes = ("txt:" + text).getBytes(StandardCharsets.ISO_8859_1);
            header('=', bytes.length);
            out.writeBytes(bytes).writeBytes(CRLF);
        } else {
            bulk(text);
        }
    }

    private void header(char type, long length) {
        out.writeByte(type).writeCharSequence(Long.toString(length), StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
    }
}
