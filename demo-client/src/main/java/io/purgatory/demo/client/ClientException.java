package io.purgatory.demo.client;

/**
 * A failure that ends the run before the load starts (no connection, no common protocol version, no
 * such topic). Its message is one line for the user, without the {@code demo-client:} prefix.
 * Immutable once thrown.
 */
final class ClientException extends Exception {
    ClientException(String message) {
        super(message);
    }

    ClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
