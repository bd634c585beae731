package io.purgatory.benchmarks.perf;

/** The purgatories compared, each with its defaults: its own timer, purge interval 1000, reaper on. Stateless: thread-safe. */
enum PurgatoryImplementation {
    /** {@code io.purgatory.DelayedOperationPurgatory}, keys only: {@code checkAndComplete}. */
    OURS("ours") {
        @Override
        PurgatoryUnderTest open(Outcomes outcomes) {
            return new OurPurgatory(outcomes, false);
        }
    },
    /**
     * {@code io.purgatory.DelayedOperationPurgatory} with position watches:
     * {@code tryCompleteElseWatch(op, key, position)} and {@code advance}. Only the HWM mode has positions.
     */
    OURS_POSITIONS("ours-positions") {
        @Override
        PurgatoryUnderTest open(Outcomes outcomes) {
            return new OurPurgatory(outcomes, true);
        }
    },
    /**
     * {@code io.purgatory.Waiters}, the future form: {@code waitFor(partition, offset, timeout)} with a
     * callback, and {@code advance(partition)}; position watches underneath. HWM mode only.
     */
    WAITERS_FUTURE("ours-future") {
        @Override
        PurgatoryUnderTest open(Outcomes outcomes) {
            return new OurWaiters(outcomes);
        }
    },
    /** Kafka 4.4.0's {@code org.apache.kafka.server.purgatory.DelayedOperationPurgatory}. */
    KAFKA("kafka") {
        @Override
        PurgatoryUnderTest open(Outcomes outcomes) {
            return new KafkaPurgatory(outcomes);
        }
    };

    private final String label;

    PurgatoryImplementation(String label) {
        this.label = label;
    }

    /** A fresh purgatory whose operations record into outcomes. */
    abstract PurgatoryUnderTest open(Outcomes outcomes);

    String label() {
        return label;
    }
}
