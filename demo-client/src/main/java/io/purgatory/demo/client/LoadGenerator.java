package io.purgatory.demo.client;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the run's produce requests over one connection and gives each an {@link Outcome}.
 *
 * <p>Pacing, without sleeping: request {@code i} is due at {@code start + i / rate}; a send happens
 * when it is due and fewer than {@code concurrency} requests are in flight. When nothing can be sent,
 * a timer on the event loop wakes the pacer at the next due time, and an outcome wakes it when the
 * concurrency bound was what held it back. A pacer that falls behind (a late timer, a full window)
 * catches up by at most {@link #MAX_CATCH_UP_NANOS} worth of requests, so it never bursts the backlog
 * of a long stall. Latency is measured from the moment a request is written to the moment its
 * outcome is known.
 *
 * <p>Every request gets exactly one outcome: the broker's answer, "no response" when its deadline
 * (timeout plus grace) passes first, "disconnected" when the connection closes first, or for acks=0
 * "sent" once written. A response that arrives after its deadline is ignored. When the connection
 * is lost, nothing more is sent and the run ends once the requests in flight have their outcomes.
 * When the user interrupts the run ({@link #interrupt}), it ends at once.
 *
 * <p>Thread-safety: all state is confined to the connection's event loop. {@link #start} and
 * {@link #progress} may be called from any thread and hop onto it; the futures they return complete
 * there.
 */
final class LoadGenerator {
    private static final Logger LOG = LoggerFactory.getLogger(LoadGenerator.class);

    /**
     * How far behind schedule the pacer may be and still catch up: enough for a late timer or the
     * JIT warming up at the start, too little for a burst after the window was full for long.
     */
    static final long MAX_CATCH_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final KafkaConnection connection;
    private final ProduceRequests requests;
    private final ClientOptions options;
    private final Handshake.Result setup;
    private final EventLoop loop;
    private final long intervalNanos;
    private final CompletableFuture<RunReport> done = new CompletableFuture<>();

    // event loop only
    private final RunStats stats = new RunStats();
    private long startNanos;
    private long lastSendNanos;
    private long nextDueNanos;
    private long issued;
    private ScheduledFuture<?> pacerTimer;
    private boolean pacerQueued;
    private RunReport.Disconnect disconnect;
    private RunReport.Interrupted interrupted;
    private boolean finished;

    LoadGenerator(KafkaConnection connection, Handshake.Result setup, ClientOptions options) {
        this.connection = connection;
        this.setup = setup;
        this.requests = new ProduceRequests(setup, options);
        this.options = options;
        this.loop = connection.eventLoop();
        this.intervalNanos = options.rate() > 0 ? Math.max(1, Math.round(TimeUnit.SECONDS.toNanos(1) / options.rate())) : 0;
    }

    /** Starts sending; the future completes with the report once every request has an outcome. */
    CompletableFuture<RunReport> start() {
        loop.execute(this::begin);
        return done;
    }

    /**
     * Stops the run now, as the user asked (Ctrl-C): nothing more is sent, and the report of what
     * happened so far completes {@link #start}'s future, the requests in flight without outcomes.
     * Any thread.
     */
    void interrupt() {
        loop.execute(() -> {
            if (!finished) {
                interrupted = new RunReport.Interrupted(stats.inFlight());
                maybeFinish();
            }
        });
    }

    /** The counters now, taken on the event loop. */
    CompletableFuture<Progress> progress() {
        return CompletableFuture.supplyAsync(() -> stats.progress(System.nanoTime() - startNanos), loop);
    }

    private void begin() {
        startNanos = System.nanoTime();
        nextDueNanos = startNanos;
        connection.closeFuture().thenAccept(this::onConnectionClosed);
        pace();
    }

    private void pace() {
        if (finished || disconnect != null) {
            return;
        }
        long now = System.nanoTime();
        while (issued < options.requestLimit() && stats.inFlight() < options.concurrency() && disconnect == null) {
            if (intervalNanos > 0) {
                long untilDue = nextDueNanos - now;
                if (untilDue > 0) {
                    wakeAfter(untilDue);
                    return;
                }
                nextDueNanos = Math.max(nextDueNanos, now - MAX_CATCH_UP_NANOS) + intervalNanos;
            }
            sendNext();
        }
        maybeFinish();
    }

    private void sendNext() {
        InFlight request = new InFlight();
        boolean expectResponse = options.expectsResponses();
        ProduceRequest produce = requests.build(issued++);
        stats.onSent();
        if (expectResponse) {
            request.deadline = loop.schedule(() -> settle(request, Outcome.NO_RESPONSE), options.responseDeadlineMs(), TimeUnit.MILLISECONDS);
        }
        request.sentAtNanos = System.nanoTime();
        lastSendNanos = request.sentAtNanos;
        connection.send(produce, expectResponse).whenComplete((response, failure) -> onResult(request, response, failure));
    }

    private void onResult(InFlight request, AbstractResponse response, Throwable failure) {
        if (failure != null) {
            settle(request, failure instanceof KafkaConnection.ClosedException
                    ? Outcome.DISCONNECTED
                    : new Outcome(Outcome.Kind.ERROR, "client error: " + failure.getClass().getSimpleName()));
        } else if (response == null) {
            settle(request, Outcome.SENT_NO_ACK);
        } else {
            settle(request, outcomeOf((ProduceResponse) response));
        }
    }

    /** The error of the response's one partition. */
    private static Outcome outcomeOf(ProduceResponse response) {
        for (TopicProduceResponse topic : response.data().responses()) {
            for (PartitionProduceResponse partition : topic.partitionResponses()) {
                return Outcome.of(Errors.forCode(partition.errorCode()));
            }
        }
        return new Outcome(Outcome.Kind.ERROR, "response without a partition");
    }

    private void settle(InFlight request, Outcome outcome) {
        if (request.settled) {
            return; // a late response after "no response", or a failure after the outcome
        }
        request.settled = true;
        if (request.deadline != null) {
            request.deadline.cancel(false);
        }
        if (outcome.kind() == Outcome.Kind.SENT_NO_ACK) {
            stats.onOutcome(outcome);
        } else {
            stats.onOutcome(outcome, System.nanoTime() - request.sentAtNanos);
        }
        wakeNow();
        maybeFinish();
    }

    private void onConnectionClosed(String reason) {
        if (finished) {
            return; // we closed it after the run
        }
        LOG.debug("connection lost mid-run ({}) with {} request(s) in flight, {} not sent", reason, stats.inFlight(),
                notSent());
        disconnect = new RunReport.Disconnect(reason, stats.inFlight());
        maybeFinish();
    }

    /** Requests the run was to send and has not: none for a run that sends until it is stopped. */
    private long notSent() {
        return options.untilStopped() ? 0 : options.requests() - issued;
    }

    /** Runs the pacer soon, unless a timer will (the pacer then waits for a due time, not for room). */
    private void wakeNow() {
        if (pacerQueued || pacerTimer != null || finished) {
            return;
        }
        pacerQueued = true;
        loop.execute(() -> {
            pacerQueued = false;
            pace();
        });
    }

    private void wakeAfter(long nanos) {
        if (pacerTimer == null) {
            pacerTimer = loop.schedule(() -> {
                pacerTimer = null;
                pace();
            }, nanos, TimeUnit.NANOSECONDS);
        }
    }

    private void maybeFinish() {
        if (finished || (interrupted == null && (stats.inFlight() > 0 || (issued < options.requestLimit() && disconnect == null)))) {
            return;
        }
        finished = true;
        if (pacerTimer != null) {
            pacerTimer.cancel(false);
            pacerTimer = null;
        }
        done.complete(new RunReport(options, setup, System.nanoTime() - startNanos, Math.max(0, lastSendNanos - startNanos), stats.sent(),
                notSent(), stats.summaries(), disconnect, interrupted));
    }

    /** One request between its send and its outcome; event loop only. */
    private static final class InFlight {
        long sentAtNanos;
        ScheduledFuture<?> deadline;
        boolean settled;
    }
}
