package io.purgatory.examples.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** A socket that writes bytes as given and reads the server's replies as bytes: for what no client library would send. */
final class RawClient implements AutoCloseable {

    private final Socket socket;

    RawClient(int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
    }

    /** Sends text (each character one byte), flushed at once: one TCP segment per call, with TCP_NODELAY. */
    void send(String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /** Reads exactly as many bytes as expected has, as text. */
    String read(int length) throws IOException {
        byte[] bytes = socket.getInputStream().readNBytes(length);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** Reads the reply it expects, and fails if the bytes differ. */
    String readLike(String expected) throws IOException {
        return read(expected.getBytes(StandardCharsets.ISO_8859_1).length);
    }

    /** Everything the server sends until it closes the connection (fails with a timeout if it never does). */
    String readToClose() throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            all.write(buffer, 0, n);
        }
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    /** Whether the server has closed the connection, seen within the socket's timeout; false if it is still open. */
    boolean closedByServer() throws IOException {
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    Socket socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
