package io.purgatory.examples.redis;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command into words as Redis's {@code sdssplitargs} does: words are separated by
 * blanks; a word in double quotes may hold blanks and the escapes {@code \n \r \t \b \a \\ \"} and
 * {@code \xHH}; a word in single quotes may hold blanks and {@code \'}; a closing quote must be
 * followed by a blank or the end of the line. Stateless.
 */
final class InlineSplitter {

    private InlineSplitter() {
    }

    /** The line's words, or null if a quote is not closed (Redis's "unbalanced quotes"). */
    static List<byte[]> split(byte[] line) {
        List<byte[]> words = new ArrayList<>();
        int i = 0;
        while (true) {
            while (i < line.length && isBlank(line[i])) {
                i++;
            }
            if (i == line.length) {
                return words;
            }
            ByteArrayOutputStream word = new ByteArrayOutputStream();
            byte quote = 0;
            while (true) {
                if (i == line.length) {
                    if (quote != 0) {
                        return null;
                    }
                    break;
                }
                byte c = line[i];
                if (quote == '"' && c == '\\' && i + 3 < line.length && line[i + 1] == 'x' && isHex(line[i + 2]) && isHex(line[i + 3])) {
                    word.write(Character.digit(line[i + 2], 16) * 16 + Character.digit(line[i + 3], 16));
                    i += 4;
                } else if (quote == '"' && c == '\\' && i + 1 < line.length) {
                    word.write(unescape(line[i + 1]));
                    i += 2;
                } else if (quote == '\'' && c == '\\' && i + 1 < line.length && line[i + 1] == '\'') {
                    word.write('\'');
                    i += 2;
                } else if (quote != 0 && c == quote) {
                    i++;
                    if (i < line.length && !isBlank(line[i])) {
                        return null; // a closing quote must end the word
                    }
                    break;
                } else if (quote == 0 && isBlank(c)) {
                    break;
                } else if (quote == 0 && (c == '"' || c == '\'')) { // as in Redis, a quote opens even inside a word
                    quote = c;
                    i++;
                } else {
                    word.write(c);
                    i++;
                }
            }
            words.add(word.toByteArray());
        }
    }

    private static int unescape(byte c) {
        return switch (c) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'b' -> '\b';
            case 'a' -> 7;
            default -> c;
        };
    }

    private static boolean isBlank(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isHex(byte c) {
        return Character.digit(c, 16) >= 0;
    }
}
