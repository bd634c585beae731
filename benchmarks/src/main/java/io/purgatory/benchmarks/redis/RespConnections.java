package io.purgatory.benchmarks.redis;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Many RESP2 connections to one server, on a few event loops, each answering its replies to a
 * callback; the load generator's client, the same for every server. Connections come from several
 * loopback source addresses (127.0.0.1 to 127.0.0.8), so that tens of thousands of them do not run
 * out of ephemeral ports. Replies are parsed into Java values: a String (simple or bulk), a Long, a
 * {@code List<Object>} (array), {@link #NIL} (a null bulk or array), or an {@link Error}.
 *
 * <p>Thread-safe: Netty's channels are; each connection's callback runs on its event loop.
 */
final class RespConnections implements AutoCloseable {

    /** A null reply: RESP2's {@code $-1} or {@code *-1}. */
    static final Object NIL = new Object();

    /** An error reply's line. */
    record Error(String line) {
    }

    private static final int SOURCE_ADDRESSES = 8;

    private final EventLoopGroup group;
    private final InetSocketAddress server;

    RespConnections(InetSocketAddress server, int threads) {
        this.server = server;
        this.group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
    }

    /**
     * Opens count connections, each calling onReply(channel, reply) for every reply; returns once
     * all are open. Connects at most 500 at a time, so as not to overflow the server's backlog.
     */
    List<Channel> open(int count, BiConsumer<Channel, Object> onReply) throws InterruptedException {
        Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new ReplyDecoder(), new SimpleChannelInboundHandler<Object>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Object reply) {
                                onReply.accept(ctx.channel(), reply);
                            }
                        });
                    }
                });
        List<Channel> channels = new ArrayList<>(count);
        List<ChannelFuture> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            InetSocketAddress source = new InetSocketAddress("127.0.0." + (1 + i % SOURCE_ADDRESSES), 0);
            batch.add(bootstrap.connect(server, source));
            if (batch.size() == 500 || i == count - 1) {
                for (ChannelFuture future : batch) {
                    channels.add(future.sync().channel());
                }
                batch.clear();
            }
        }
        return channels;
    }

    /** Writes one command as a RESP array of bulk strings, and flushes it. */
    static ChannelFuture send(Channel channel, String... words) {
        return channel.writeAndFlush(encode(channel, words));
    }

    /** Writes one command without flushing (a pipeline: flush the channel after the last). */
    static void write(Channel channel, String... words) {
        channel.write(encode(channel, words));
    }

    private static ByteBuf encode(Channel channel, String... words) {
        ByteBuf out = channel.alloc().buffer();
        out.writeCharSequence("*" + words.length + "\r\n", StandardCharsets.ISO_8859_1);
        for (String word : words) {
            byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
            out.writeCharSequence("$" + bytes.length + "\r\n", StandardCharsets.ISO_8859_1);
            out.writeBytes(bytes);
            out.writeCharSequence("\r\n", StandardCharsets.ISO_8859_1);
        }
        return out;
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 5, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** RESP2 replies into Java values; waits for a reply's last byte before passing it on. Not thread-safe: one per connection. */
    private static final class ReplyDecoder extends ByteToMessageDecoder {
        /** Returned by {@link #parse} when the reply has not all arrived. */
        private static final Object INCOMPLETE = new Object();

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (in.isReadable()) {
                int start = in.readerIndex();
                Object reply = parse(in);
                if (reply == INCOMPLETE) {
                    in.readerIndex(start);
                    return;
                }
                out.add(reply);
            }
        }

        private static Object parse(ByteBuf in) {
            int cr = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\r');
            if (cr < 0 || cr + 1 >= in.writerIndex()) {
                return INCOMPLETE;
            }
            byte type = in.readByte();
            String line = in.readCharSequence(cr - in.readerIndex(), StandardCharsets.ISO_8859_1).toString();
            in.skipBytes(2);
            switch (type) {
                case '+':
                    return line;
                case '-':
                    return new Error(line);
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int length = Integer.parseInt(line);
                    if (length < 0) {
                        return NIL;
                    }
                    if (in.readableBytes() < length + 2) {
                        return INCOMPLETE;
                    }
                    String value = in.readCharSequence(length, StandardCharsets.UTF_8).toString();
                    in.skipBytes(2);
                    return value;
                }
                case '*': {
                    int length = Integer.parseInt(line);
                    if (length < 0) {
                        return NIL;
                    }
                    List<Object> elements = new ArrayList<>(length);
                    for (int i = 0; i < length; i++) {
                        Object element = parse(in);
                        if (element == INCOMPLETE) {
                            return INCOMPLETE;
                        }
                        elements.add(element);
                    }
                    return elements;
                }
                default:
                    throw new IllegalStateException("not a RESP2 reply: " + (char) type + line);
            }
        }
    }
}
