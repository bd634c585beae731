package io.purgatory.examples.redis;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a client's bytes into commands as Redis 7.0 does: a RESP array of bulk strings
 * ({@code *2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n}), or an inline command, a line of words as typed into
 * telnet ({@code LLEN k\r\n}, with Redis's quoting). Each complete command goes down the pipeline
 * as a {@link Command}; a command split over many reads is put together first, and many commands
 * in one read are passed on one by one. An empty array and an empty line are no command.
 *
 * <p>Malformed input gets Redis's own error, as one {@link ProtocolError}, after which every
 * further byte of the connection is dropped (its handler answers the error and closes, as Redis
 * does): a count that is not a number or is too large, an array element that is not a bulk string,
 * a bulk string longer than {@link #MAX_BULK_LENGTH}, a count line or inline command longer than
 * {@link #MAX_INLINE_LENGTH} without its end, unbalanced quotes.
 *
 * <p>Not thread-safe: one instance per connection, used by its event loop only.
 */
final class RespDecoder extends ByteToMessageDecoder {

    /** Redis's {@code proto-max-bulk-len} default: a longer bulk string is refused before it is read. */
    static final long MAX_BULK_LENGTH = 512L * 1024 * 1024;
    /** Redis's {@code PROTO_INLINE_MAX_SIZE}: the longest inline command, or count line, it buffers. */
    static final int MAX_INLINE_LENGTH = 64 * 1024;

    /** The command being read: its argument count, or -1 between commands. */
    private long expected = -1;
    private final List<byte[]> arguments = new ArrayList<>();
    /** After a protocol error: every further byte is dropped. */
    private boolean broken;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!broken && in.isReadable()) {
            Object decoded = expected < 0 && in.getByte(in.readerIndex()) != '*' ? inline(in) : multiBulk(in);
            if (decoded == null) {
                return; // needs more bytes
            }
            if (decoded instanceof ProtocolError) {
                broken = true;
            }
            if (decoded != NO_COMMAND) {
                out.add(decoded);
            }
        }
        if (broken) {
            in.skipBytes(in.readableBytes());
        }
    }

    private static final Object NO_COMMAND = new Object();

    /** A command, {@link #NO_COMMAND}, a {@link ProtocolError}, or null if the array is not complete yet. */
    private Object multiBulk(ByteBuf in) {
        if (expected < 0) {
            Object count = number(in, "too big mbulk count string", "invalid multibulk length");
            if (!(count instanceof Long length)) {
                return count;
            }
            if (length > Integer.MAX_VALUE) {
                return new ProtocolError("invalid multibulk length");
            }
            if (length <= 0) {
                return NO_COMMAND;
            }
            expected = length;
        }
        while (arguments.size() < expected) {
            if (!in.isReadable()) {
                return null;
            }
            byte type = in.getByte(in.readerIndex());
            if (type != '$') {
                return new ProtocolError("expected '$', got '" + (char) (type & 0xff) + "'");
            }
            int start = in.readerIndex();
            Object bulkLength = number(in, "too big bulk count string", "invalid bulk length");
            if (!(bulkLength instanceof Long length)) {
                return bulkLength;
            }
            if (length < 0 || length > MAX_BULK_LENGTH) {
                return new ProtocolError("invalid bulk length");
            }
            if (in.readableBytes() < length + 2) {
                in.readerIndex(start); // the header is read again with its body
                return null;
            }
            byte[] argument = new byte[Math.toIntExact(length)];
            in.readBytes(argument);
            in.skipBytes(2); // Redis does not check that these are CR LF
            arguments.add(argument);
        }
        expected = -1;
        Command command = new Command(List.copyOf(arguments));
        arguments.clear();
        return command;
    }

    /**
     * The number on the line that starts at the reader index after its one-byte type ({@code *} or
     * {@code $}), with the reader moved past the line: a Long, a {@link ProtocolError}, or null if
     * the line has not all arrived (the reader then stays).
     */
    private static Object number(ByteBuf in, String tooLong, String invalid) {
        int cr = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\r');
        if (cr < 0 || cr + 1 >= in.writerIndex()) {
            return in.readableBytes() > MAX_INLINE_LENGTH ? new ProtocolError(tooLong) : null;
        }
        String digits = in.toString(in.readerIndex() + 1, cr - in.readerIndex() - 1, StandardCharsets.ISO_8859_1);
        in.readerIndex(cr + 2);
        if (digits.startsWith("+")) { // Redis's string2ll takes a sign only if it is '-'
            return new ProtocolError(invalid);
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return new ProtocolError(invalid);
        }
    }

    /** An inline command, {@link #NO_COMMAND}, a {@link ProtocolError}, or null if its line has not all arrived. */
    private static Object inline(ByteBuf in) {
        int newline = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
        if (newline < 0) {
            return in.readableBytes() > MAX_INLINE_LENGTH ? new ProtocolError("too big inline request") : null;
        }
        int end = newline > in.readerIndex() && in.getByte(newline - 1) == '\r' ? newline - 1 : newline;
        byte[] line = new byte[end - in.readerIndex()];
        in.getBytes(in.readerIndex(), line);
        in.readerIndex(newline + 1);
        List<byte[]> words = InlineSplitter.split(line);
        if (words == null) {
            return new ProtocolError("unbalanced quotes in request");
        }
        return words.isEmpty() ? NO_COMMAND : new Command(words);
    }
}
