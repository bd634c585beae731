package io.purgatory.demo.client;

/**
 * A broker address, {@code host:port}; an IPv6 literal is written in brackets, {@code [::1]:9092}.
 * Immutable.
 */
record Endpoint(String host, int port) {

    Endpoint {
        if (host.isEmpty()) {
            throw new IllegalArgumentException("the host is empty");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("the port must be 1..65535, was " + port);
        }
    }

    /**
     * Parses {@code host:port} or {@code [ipv6]:port}.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code value}
     */
    static Endpoint parse(String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, e.g. localhost:9092, but was '" + value + "'");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("write an IPv6 address in brackets, e.g. [::1]:9092, but was '" + value + "'");
        }
        final int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the port in '" + value + "' is not a number");
        }
        return new Endpoint(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
