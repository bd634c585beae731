package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A JMX connection to one node's JVM, for what the broker exposes there: Kafka's own purgatory gauges
 * ({@code kafka.server:type=DelayedOperationPurgatory,...}), purgatory-kafka's MBeans
 * ({@code io.purgatory:type=DelayedOperationPurgatory,...}), and the JVM's own.
 *
 * <p>Thread-safe as {@link MBeanServerConnection} is.
 */
public final class NodeJmx implements AutoCloseable {

    private final JMXConnector connector;
    private final MBeanServerConnection server;

    private NodeJmx(JMXConnector connector, MBeanServerConnection server) {
        this.connector = connector;
        this.server = server;
    }

    // JMX over RMI deserializes what the peer sends: the peer is a broker JVM this fixture started on loopback
    @SuppressWarnings("BanJNDI")
    static NodeJmx connect(KafkaNode node) {
        String url = "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + node.ports().jmx() + "/jmxrmi";
        try {
            JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(url));
            return new NodeJmx(connector, connector.getMBeanServerConnection());
        } catch (IOException e) {
            throw new UncheckedIOException("no JMX on node " + node.id() + " at " + url, e);
        }
    }

    /** The names matching an {@link ObjectName} pattern, e.g. {@code io.purgatory:type=DelayedOperationPurgatory,*}. */
    public Set<ObjectName> names(String pattern) {
        try {
            return server.queryNames(new ObjectName(pattern), null);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not an ObjectName pattern: " + pattern, e);
        } catch (IOException e) {
            throw new UncheckedIOException("JMX query " + pattern + " failed", e);
        }
    }

    /** One attribute of one MBean. */
    public Object attribute(ObjectName name, String attribute) {
        try {
            return server.getAttribute(name, attribute);
        } catch (JMException e) {
            throw new IllegalArgumentException("no attribute " + attribute + " on " + name + ": " + e, e);
        } catch (IOException e) {
            throw new UncheckedIOException("JMX read of " + name + " failed", e);
        }
    }

    /** A numeric attribute of the MBean named {@code name} (not a pattern). */
    public long longAttribute(String name, String attribute) {
        try {
            return ((Number) attribute(new ObjectName(name), attribute)).longValue();
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not an ObjectName: " + name, e);
        }
    }

    /** The names of one MBean's attributes, in the order the MBean lists them. */
    public List<String> attributeNames(ObjectName name) {
        try {
            return Arrays.stream(server.getMBeanInfo(name).getAttributes()).map(MBeanAttributeInfo::getName).toList();
        } catch (JMException e) {
            throw new IllegalArgumentException("no MBean " + name + ": " + e, e);
        } catch (IOException e) {
            throw new UncheckedIOException("JMX read of " + name + " failed", e);
        }
    }

    /** The names of the node JVM's live threads (the Threading MXBean's). */
    public Set<String> threadNames() {
        try {
            ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(server, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
            return Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds())).filter(Objects::nonNull)
                    .map(ThreadInfo::getThreadName).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException("JMX read of the threads failed", e);
        }
    }

    /** The CPU time the node's JVM has used so far, all threads (the OperatingSystem MXBean's ProcessCpuTime). */
    public long processCpuNanos() {
        return longAttribute("java.lang:type=OperatingSystem", "ProcessCpuTime");
    }

    /** The node's heap in use right after a full GC that this call asks the JVM for (the Memory MXBean's gc). */
    public long heapUsedAfterGc() {
        try {
            ObjectName memory = new ObjectName("java.lang:type=Memory");
            server.invoke(memory, "gc", null, null);
            return (Long) ((CompositeData) server.getAttribute(memory, "HeapMemoryUsage")).get("used");
        } catch (JMException e) {
            throw new IllegalStateException("no heap figures over JMX: " + e, e);
        } catch (IOException e) {
            throw new UncheckedIOException("JMX gc or read failed", e);
        }
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException e) {
            // the node is gone: nothing left to close
        }
    }
}
