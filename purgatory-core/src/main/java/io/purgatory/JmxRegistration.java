package io.purgatory;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A purgatory's metrics registered on the platform MBean server under
 * {@link PurgatoryMetrics#objectName()}, until {@link #unregister()}. A name already taken (another
 * open purgatory of the same name) is logged and skipped: the purgatory works without JMX.
 *
 * <p>Thread-safe: immutable.
 */
final class JmxRegistration {

    private static final Logger LOG = LoggerFactory.getLogger(JmxRegistration.class);

    private final String purgatoryName;
    private final ObjectName objectName;

    private JmxRegistration(String purgatoryName, ObjectName objectName) {
        this.purgatoryName = purgatoryName;
        this.objectName = objectName;
    }

    /** Registers the metrics of purgatory {@code name}; null (and a warning) if JMX refused them. */
    static @Nullable JmxRegistration register(String name, PurgatoryMetrics metrics) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            server.registerMBean(metrics.mbean(), metrics.objectName());
            return new JmxRegistration(name, metrics.objectName());
        } catch (JMException e) {
            LOG.warn("Purgatory {}: metrics not registered over JMX ({}): is another purgatory open under the same name?",
                    name, e.toString());
            return null;
        }
    }

    /** Takes the metrics off the MBean server; a failure is logged at debug level. */
    void unregister() {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName);
        } catch (JMException e) {
            LOG.debug("Purgatory {}: JMX unregistration failed", purgatoryName, e);
        }
    }
}
