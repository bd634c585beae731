package io.purgatory.demo.broker.http;

/**
 * Writes JSON into a string, inserting the commas itself: objects, arrays, names, strings, numbers,
 * booleans. Enough for the dashboard's samples; it checks nothing about nesting.
 *
 * <p>Not thread-safe: one writer per document, used by one thread.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder(1024);
    private boolean needsComma;

    JsonWriter beginObject() {
        separate();
        out.append('{');
        needsComma = false;
        return this;
    }

    JsonWriter endObject() {
        out.append('}');
        needsComma = true;
        return this;
    }

    JsonWriter beginArray() {
        separate();
        out.append('[');
        needsComma = false;
        return this;
    }

    JsonWriter endArray() {
        out.append(']');
        needsComma = true;
        return this;
    }

    /** The name of the next member of an object. */
    JsonWriter name(String name) {
        string(name);
        out.append(':');
        needsComma = false;
        return this;
    }

    JsonWriter value(String value) {
        string(value);
        return this;
    }

    JsonWriter value(long value) {
        separate();
        out.append(value);
        needsComma = true;
        return this;
    }

    /** A finite number, rounded to three decimals; NaN and infinities become 0. */
    JsonWriter value(double value) {
        separate();
        out.append(Double.isFinite(value) ? Math.round(value * 1000) / 1000.0 : 0);
        needsComma = true;
        return this;
    }

    JsonWriter value(boolean value) {
        separate();
        out.append(value);
        needsComma = true;
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private void string(String value) {
        separate();
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
        needsComma = true;
    }

    private void separate() {
        if (needsComma) {
            out.append(',');
        }
    }
}
