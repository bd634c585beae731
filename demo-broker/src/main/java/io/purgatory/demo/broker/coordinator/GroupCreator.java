package io.purgatory.demo.broker.coordinator;

/**
 * Who created a group, as the group caps count it: the client id the request claimed and the
 * address it came from. The per-client cap counts a client id at one address, so a client elsewhere
 * claiming the same id counts against its own address, never against the client it imitates; the
 * per-address cap counts every client id at an address together, so rotating client ids does not
 * get past it. Immutable.
 *
 * @param clientId the request's client id, as claimed
 * @param host the client's address as a group member's host is shown ("/127.0.0.1"), or "" when
 *     there is none (a call from inside the broker's process)
 */
record GroupCreator(String clientId, String host) {
    @Override
    public String toString() {
        return "client id '" + clientId + "'" + (host.isEmpty() ? "" : " at " + host);
    }
}
