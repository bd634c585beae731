package io.purgatory.examples.redis;

import org.jspecify.annotations.Nullable;

/**
 * What the server knows of one connection: its id, the protocol it speaks (2 until {@code HELLO 3})
 * and the name and library it gave ({@code CLIENT SETNAME}, {@code CLIENT SETINFO}). Not
 * thread-safe: read and written by the connection's event loop only.
 */
final class Session {

    final long id;
    int protocol = 2;
    @Nullable String name;
    @Nullable String libraryName;
    @Nullable String libraryVersion;

    Session(long id) {
        this.id = id;
    }
}
