package io.purgatory.benchmarks.timer;

import io.purgatory.timer.SystemTimer;

/**
 * The timers compared, as a JMH {@code @Param}: every one at a 1 ms resolution, with one thread that
 * advances it.
 */
public enum TimerImplementation {
    /** {@code io.purgatory.timer.SystemTimer}: tick 1 ms, its default buckets per level ({@code -Dwheel=N} for another). */
    PURGATORY {
        @Override
        public TimerUnderTest open() {
            return new PurgatoryTimer();
        }
    },
    /**
     * The same with {@code SystemTimer.TaskThread.REAPER}: due tasks run on the reaper thread, as
     * Netty's run on its worker (for short callbacks only: see that option's risk).
     */
    PURGATORY_ON_REAPER {
        @Override
        public TimerUnderTest open() {
            return new PurgatoryTimer(SystemTimer.TaskThread.REAPER);
        }
    },
    /**
     * Kafka 4.4.0's {@code org.apache.kafka.server.util.timer.SystemTimer} (tick 1 ms, 20 buckets),
     * advanced by Kafka's own {@code SystemTimerReaper} thread.
     */
    KAFKA {
        @Override
        public TimerUnderTest open() {
            return new KafkaTimer();
        }
    },
    /** Netty's {@code HashedWheelTimer} with a 1 ms tick and 512 buckets; tasks run on its worker thread. */
    NETTY {
        @Override
        public TimerUnderTest open() {
            return new NettyTimer();
        }
    },
    /** A one-thread {@code ScheduledThreadPoolExecutor} with {@code setRemoveOnCancelPolicy(true)}. */
    JDK {
        @Override
        public TimerUnderTest open() {
            return new JdkTimer();
        }
    };

    /** Starts a fresh timer of this implementation. */
    public abstract TimerUnderTest open();
}
