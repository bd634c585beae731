package io.purgatory.examples.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One command as the client sent it: its name and arguments, as bytes (Redis's keys and values are
 * binary). Immutable.
 */
record Command(List<byte[]> arguments) {

    /** The command's name, lower-cased, as Redis names it in its errors. */
    String name() {
        return text(0).toLowerCase(java.util.Locale.ROOT);
    }

    /** How many words the client sent, the name included (Redis's {@code argc}). */
    int size() {
        return arguments.size();
    }

    byte[] bytes(int index) {
        return arguments.get(index);
    }

    /** Argument index as text: each byte one character (ISO-8859-1), so that any key survives the round trip. */
    String text(int index) {
        return new String(arguments.get(index), StandardCharsets.ISO_8859_1);
    }
}
