package io.purgatory.demo.broker.server;

/**
 * Topic names in responses. Stateless; thread-safe.
 */
final class TopicNames {
    private TopicNames() {
    }

    /**
     * A topic name as a response can carry it: unchanged if it fits a protocol string (32,767 bytes
     * of UTF-8), else its longest prefix that does. A name that does not fit is invalid anyway, but
     * its answer must still be serializable.
     */
    static String echoable(String name) {
        if (name == null || name.length() <= Short.MAX_VALUE / 3) { // at most 3 UTF-8 bytes per char
            return name;
        }
        int bytes = 0;
        int end = 0;
        while (end < name.length()) {
            int codePoint = name.codePointAt(end);
            int length = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + length > Short.MAX_VALUE) {
                break;
            }
            bytes += length;
            end += Character.charCount(codePoint);
        }
        return name.substring(0, end);
    }
}
