package io.purgatory.examples.redis;

import io.purgatory.Handed;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * A blocking pop waiting in the hand-off: the future the hand-off answers (cancel it when the client
 * goes), and how to write the answer as the command's reply. Immutable.
 *
 * @param answer writes the reply for the hand-off's answer (TAKEN, TIMED_OUT or CLOSED)
 */
record Parked(CompletableFuture<Handed<String, byte[]>> future, BiConsumer<Handed<String, byte[]>, Reply> answer) {
}
