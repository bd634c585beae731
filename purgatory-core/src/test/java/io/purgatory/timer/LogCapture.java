package io.purgatory.timer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one logger logs while a test runs, kept instead of printed: attach with {@link #of}, close to
 * restore the logger. Thread-safe: logback's appender synchronises its list.
 */
final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final Level previousLevel;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(Class<?> loggerName) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        previousLevel = logger.getLevel();
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);
        logger.setLevel(Level.INFO);
    }

    static LogCapture of(Class<?> loggerName) {
        return new LogCapture(loggerName);
    }

    /** The formatted messages logged at {@code level} so far. */
    List<String> messages(Level level) {
        synchronized (appender) {
            return appender.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    /** The events logged at {@code level} so far. */
    List<ILoggingEvent> events(Level level) {
        synchronized (appender) {
            return appender.list.stream().filter(e -> e.getLevel() == level).toList();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setAdditive(true);
        logger.setLevel(previousLevel);
    }
}
