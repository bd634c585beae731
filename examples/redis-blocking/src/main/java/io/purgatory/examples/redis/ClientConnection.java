package io.purgatory.examples.redis;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.purgatory.Handed;
import java.util.ArrayDeque;
import java.util.Queue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's connection: runs its commands one after the other, in the order they came, each
 * reply written in that order, as Redis does. A blocking pop that has to wait parks the connection:
 * the commands the client sends meanwhile (a pipeline of pops, say) are read and queued, not run,
 * until the pop is answered; so a client has at most one pop waiting, and its replies stay in
 * order. Reading goes on while it waits, so a client that goes away is seen at once: its waiting
 * pop is cancelled and takes nothing.
 *
 * <p>A client that does not read its replies is not served further once its connection's outgoing
 * buffer is above Netty's high water mark; its commands queue up to {@link #MAX_QUEUED}, then the
 * connection stops reading it (TCP pushes back). Other clients are not held up. A
 * {@link ProtocolError} is answered with Redis's line, then the connection closes; so does QUIT
 * after its +OK.
 *
 * <p>Not thread-safe: every field is touched by the connection's event loop only; the hand-off's
 * answer, when it comes on another thread, is passed to the event loop as a task. When it comes on
 * this event loop (a push from a client of the same loop), it is written there and then, inside
 * the push: the hand-off completes futures holding none of its locks.
 */
@SuppressWarnings({
    "FutureReturnValueIgnored", // Netty's write and close futures: a failed write closes the channel; nothing waits on them
    "ReferenceEquality" // a parked pop is compared by identity: is it still this connection's?
})
final class ClientConnection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    /** Commands read but not run (the client is parked, or not reading) before reading stops. */
    static final int MAX_QUEUED = 1024;

    private final Commands commands;
    private final ServerStats stats;
    private final Session session;
    private final Queue<Object> queued = new ArrayDeque<>();
    /** The pop this client waits on, or null. */
    private @Nullable Parked parked;
    /** After QUIT or a protocol error: nothing more is run. */
    private boolean closing;

    ClientConnection(Commands commands, ServerStats stats, long id) {
        this.commands = commands;
        this.stats = stats;
        this.session = new Session(id);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        stats.connectedClients.incrementAndGet();
        stats.connectionsReceived.increment();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        queued.add(message);
        if (queued.size() >= MAX_QUEUED) {
            ctx.channel().config().setAutoRead(false);
        }
        runQueued(ctx);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            runQueued(ctx);
            ctx.flush();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stats.connectedClients.decrementAndGet();
        if (parked != null) {
            parked.future().cancel(false); // the client is gone: its pop takes nothing from now on
            parked = null;
        }
        queued.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /** Runs queued commands until none is left, a pop parks, or the client stops reading. */
    private void runQueued(ChannelHandlerContext ctx) {
        while (parked == null && !closing && ctx.channel().isWritable()) {
            Object message = queued.poll();
            if (message == null) {
                break;
            }
            run(ctx, message);
        }
        if (!closing && queued.size() < MAX_QUEUED / 2 && !ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void run(ChannelHandlerContext ctx, Object message) {
        Reply reply = new Reply(ctx.alloc().buffer(), session.protocol);
        if (message instanceof ProtocolError error) {
            reply.error("Protocol error: " + error.message());
            close(ctx, reply);
            return;
        }
        Command command = (Command) message;
        Parked pop = commands.execute(session, command, reply);
        if (pop == null) {
            if (command.name().equals("quit")) {
                close(ctx, reply);
            } else {
                ctx.write(reply.buffer());
            }
            return;
        }
        reply.buffer().release();
        parked = pop;
        pop.future().whenComplete((handed, cancelled) -> {
            if (handed == null) {
                return; // cancelled: the client went away
            }
            if (ctx.executor().inEventLoop()) {
                answer(ctx, pop, handed); // answered by a command of a client on this event loop: no task, no wake-up
            } else {
                ctx.executor().execute(() -> answer(ctx, pop, handed));
            }
        });
    }

    /** The hand-off answered the parked pop: its reply, then the commands that queued behind it. */
    private void answer(ChannelHandlerContext ctx, Parked pop, Handed<String, byte[]> handed) {
        if (parked != pop) {
            return; // the connection closed meanwhile
        }
        parked = null;
        if (handed.outcome() == Handed.Outcome.CLOSED) {
            ctx.close(); // the server is stopping
            return;
        }
        Reply reply = new Reply(ctx.alloc().buffer(), session.protocol);
        pop.answer().accept(handed, reply);
        ctx.write(reply.buffer());
        runQueued(ctx);
        ctx.flush();
    }

    private void close(ChannelHandlerContext ctx, Reply last) {
        closing = true;
        queued.clear();
        ctx.writeAndFlush(last.buffer()).addListener(ChannelFutureListener.CLOSE);
    }
}
