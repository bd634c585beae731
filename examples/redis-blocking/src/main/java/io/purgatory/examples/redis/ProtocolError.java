package io.purgatory.examples.redis;

/**
 * Input that is not the Redis protocol: answered {@code -ERR Protocol error: <message>}, then the
 * connection is closed, as Redis does. Immutable.
 */
record ProtocolError(String message) {
}
