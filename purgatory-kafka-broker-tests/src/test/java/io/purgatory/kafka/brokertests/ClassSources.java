package io.purgatory.kafka.brokertests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each class a JVM loaded came from, read from the JVM's {@code -Xlog:class+load} log: class name to
 * the jar's file name ({@code kafka-server-common-4.3.1.jar}). Immutable.
 */
final class ClassSources {

    private static final Pattern LOAD = Pattern.compile("\\[class,load\\] (\\S+) source: file:(\\S+)");

    private final Map<String, String> jarByClass;

    private ClassSources(Map<String, String> jarByClass) {
        this.jarByClass = Collections.unmodifiableMap(jarByClass);
    }

    static ClassSources read(Path log) throws IOException {
        Map<String, String> jarByClass = new TreeMap<>();
        try (var lines = Files.lines(log)) {
            lines.forEach(line -> {
                Matcher m = LOAD.matcher(line);
                if (m.find()) {
                    jarByClass.put(m.group(1), Path.of(m.group(2)).getFileName().toString());
                }
            });
        }
        return new ClassSources(jarByClass);
    }

    /** The file name of the jar the class was loaded from, or null if the JVM did not load it from a file. */
    String jarOf(String className) {
        return jarByClass.get(className);
    }
}
