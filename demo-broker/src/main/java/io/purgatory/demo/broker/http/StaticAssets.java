package io.purgatory.demo.broker.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dashboard's page, script and style sheet, read once from the broker jar ({@code web/} on the
 * class path) and served from memory. Nothing is fetched from elsewhere: the page works offline.
 *
 * <p>Thread-safe: immutable after construction.
 */
public final class StaticAssets {
    /** One file: its bytes and {@code Content-Type}. */
    record Asset(byte[] bytes, String contentType) {
    }

    private final Map<String, Asset> byPath = new LinkedHashMap<>();

    StaticAssets() {
        Asset index = load("index.html", "text/html; charset=utf-8");
        byPath.put("/", index);
        byPath.put("/index.html", index);
        byPath.put("/dashboard.js", load("dashboard.js", "text/javascript; charset=utf-8"));
        byPath.put("/dashboard.css", load("dashboard.css", "text/css; charset=utf-8"));
    }

    /** The asset served at {@code path}, or {@code null}. */
    Asset get(String path) {
        return byPath.get(path);
    }

    private static Asset load(String name, String contentType) {
        try (InputStream in = StaticAssets.class.getResourceAsStream("/web/" + name)) {
            if (in == null) {
                throw new IllegalStateException("web/" + name + " is missing from the class path: the broker jar is incomplete");
            }
            return new Asset(in.readAllBytes(), contentType);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read web/" + name, e);
        }
    }
}
