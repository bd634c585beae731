package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/demo.md's ISR scenarios, each from one broker configuration with a stall that starts after a
 * delay: a client producing one acks=-1 request at a time sees acks (unless its first request comes
 * after the delay), then a produce parked until the ISR shrinks, then what the scenario promises.
 */
@Tag("integration")
class DocumentedScenariosTest {
    private static final long STALL_AFTER_MS = 500;
    private static final long MAX_LAG_MS = 200;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    /** Replica 2 stalls for good after {@value #STALL_AFTER_MS} ms and leaves the ISR {@value #MAX_LAG_MS} ms later. */
    private static BrokerConfig.Builder stallThenShrink() {
        return BrokerConfig.builder().stallReplica(2).stallAfterMs(STALL_AFTER_MS).replicaLagTimeMaxMs(MAX_LAG_MS);
    }

    @Test
    void theIsrShrinksAndAParkedProduceCompletesWithoutTheStalledReplica() throws Exception {
        broker = brokers.start(stallThenShrink());
        List<Answer> answers = produceUntil(() -> broker.replicaManager().partition("demo", 0).timesLeftIsr(2) == 1, Errors.NONE);
        assertTrue(answers.stream().allMatch(answer -> error(answer) == Errors.NONE), answers::toString);
        assertTrue(answers.stream().anyMatch(answer -> answer.elapsedNanos() >= TimeUnit.MILLISECONDS.toNanos(MAX_LAG_MS / 2)),
                "one produce parked until the ISR shrank: " + answers);
    }

    @Test
    void theIsrShrinksBelowTheMinimumParkedProducesFailAfterAppendAndNewOnesAreRefused() throws Exception {
        broker = brokers.start(stallThenShrink().minInsyncReplicas(3));
        List<Answer> answers = produceUntil(() -> false, Errors.NOT_ENOUGH_REPLICAS);
        List<Errors> distinct = new ArrayList<>();
        for (Answer answer : answers) {
            if (distinct.isEmpty() || distinct.get(distinct.size() - 1) != error(answer)) {
                distinct.add(error(answer));
            }
        }
        String seen = answers.stream().map(a -> error(a) + " after " + TimeUnit.NANOSECONDS.toMillis(a.elapsedNanos()) + " ms").toList().toString();
        if (distinct.get(0) == Errors.NONE) { // acked before the stall, unless the JVM took that long to send the first
            distinct.remove(0);
        }
        assertEquals(List.of(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.NOT_ENOUGH_REPLICAS), distinct, seen);
        assertTrue(answers.stream().anyMatch(answer -> error(answer) == Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                && answer.elapsedNanos() >= TimeUnit.MILLISECONDS.toNanos(MAX_LAG_MS / 2)), "parked until the ISR shrank: " + seen);
    }

    /** Produces one acks=-1 request at a time until {@code done} holds after one, or one gets {@code last}. */
    private List<Answer> produceUntil(BooleanSupplier done, Errors last) throws Exception {
        List<Answer> answers = new ArrayList<>();
        WireClient client = brokers.connect();
        Waits.soon().until(() -> {
            Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, (short) -1, 10_000, 1)));
            answers.add(answer);
            return done.getAsBoolean() || (last != Errors.NONE && error(answer) == last);
        });
        return answers;
    }

    private static Errors error(Answer answer) {
        return Errors.forCode(DemoBrokerTest.partitionResponse(answer).errorCode());
    }
}
