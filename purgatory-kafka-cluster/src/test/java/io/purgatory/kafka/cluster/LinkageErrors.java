package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The lines of a broker's log that name a linkage error: what a jar built against other signatures than the
 * broker's causes (a method, field or class that is not there, a class that changed its kind), whether it is
 * thrown at the start or at the first request that reaches the class. Kafka logs a request's failure with its
 * exception, so a linkage error in any thread that Kafka catches shows here.
 */
final class LinkageErrors {

    private static final Pattern LINKAGE_ERROR = Pattern.compile(
            "\\b(NoSuchMethodError|NoSuchFieldError|NoClassDefFoundError|AbstractMethodError|IncompatibleClassChangeError"
                    + "|IllegalAccessError|VerifyError|ClassFormatError|LinkageError)\\b");

    private LinkageErrors() {
    }

    /** The node's log lines that name a linkage error, in order. */
    static List<String> in(KafkaNode node) throws IOException {
        try (var lines = Files.lines(node.logFile())) {
            return lines.filter(line -> LINKAGE_ERROR.matcher(line).find()).toList();
        }
    }
}
