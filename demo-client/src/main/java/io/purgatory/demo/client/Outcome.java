package io.purgatory.demo.client;

import java.util.Comparator;
import org.apache.kafka.common.protocol.Errors;

/**
 * What became of one produce request. Immutable; equal outcomes have the same kind and label.
 *
 * @param kind the category, which orders outcomes in reports
 * @param label how reports name it: "acked", "timed out", an error code's name such as
 *     {@code NOT_ENOUGH_REPLICAS}, "no response", "disconnected", "sent (acks=0, ...)"
 */
record Outcome(Kind kind, String label) {

    /** Outcome categories, in report order. */
    enum Kind {
        /** The broker answered {@code NONE}. */
        ACKED,
        /** The broker answered {@code REQUEST_TIMED_OUT}: the replicas did not catch up in time. */
        TIMED_OUT,
        /** The broker answered another error code. */
        ERROR,
        /** acks=0: written to the socket; the broker sends no response. */
        SENT_NO_ACK,
        /** No answer within the request's timeout plus the client's grace. */
        NO_RESPONSE,
        /** The connection was lost while the request was in flight. */
        DISCONNECTED
    }

    static final Outcome ACKED = new Outcome(Kind.ACKED, "acked");
    static final Outcome TIMED_OUT = new Outcome(Kind.TIMED_OUT, "timed out");
    static final Outcome SENT_NO_ACK = new Outcome(Kind.SENT_NO_ACK, "sent (acks=0, no response expected)");
    static final Outcome NO_RESPONSE = new Outcome(Kind.NO_RESPONSE, "no response");
    static final Outcome DISCONNECTED = new Outcome(Kind.DISCONNECTED, "disconnected");

    /** Report order: by kind, then error codes by name. */
    static final Comparator<Outcome> ORDER = Comparator.comparing(Outcome::kind).thenComparing(Outcome::label);

    /** The outcome of a produce response carrying {@code error}. */
    static Outcome of(Errors error) {
        return switch (error) {
            case NONE -> ACKED;
            case REQUEST_TIMED_OUT -> TIMED_OUT;
            default -> new Outcome(Kind.ERROR, error.name());
        };
    }

    /** Whether this outcome means the client lost track of the request (the run exits non-zero). */
    boolean isLost() {
        return kind == Kind.NO_RESPONSE || kind == Kind.DISCONNECTED;
    }

    /** Whether the broker answered with an error other than a timeout, or the request was lost. */
    boolean isOtherError() {
        return kind == Kind.ERROR || isLost();
    }
}
