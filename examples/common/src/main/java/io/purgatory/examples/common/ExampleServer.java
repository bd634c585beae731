package io.purgatory.examples.common;

/** A running example server, as its command line sees it: where it listens, and how it stops. */
public interface ExampleServer extends AutoCloseable {

    /**
     * The port it listens on.
     *
     * @return the port, 1 to 65535
     */
    int port();

    /** Stops the server, answering or closing whatever it holds; idempotent. */
    @Override
    void close();
}
