package io.purgatory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.ReflectionException;

/**
 * A read-only JMX bean whose attributes are the components of a record, read afresh at each
 * access: component {@code delayed} is attribute {@code Delayed}, and a nested record's components
 * are flattened under its name ({@code expiryLateness.count} is {@code ExpiryLatenessCount}). So the
 * JMX view has no names of its own: it is {@link PurgatoryMetrics.Snapshot}'s.
 *
 * <p>Thread-safe: immutable; each read calls the supplier, which must be thread-safe.
 */
final class SnapshotMBean implements DynamicMBean {

    private final Supplier<? extends Record> snapshots;
    private final MBeanInfo info;

    SnapshotMBean(Supplier<? extends Record> snapshots, String description) {
        this.snapshots = snapshots;
        List<MBeanAttributeInfo> attributes = new ArrayList<>();
        flatten(snapshots.get()).forEach((name, value) -> attributes.add(new MBeanAttributeInfo(
                name, value.getClass().getName(), name, true, false, false)));
        this.info = new MBeanInfo(PurgatoryMetrics.class.getName(), description,
                attributes.toArray(MBeanAttributeInfo[]::new), null, null, null);
    }

    /** The record's leaf components by attribute name, in declaration order. */
    static Map<String, Object> flatten(Record record) {
        Map<String, Object> values = new LinkedHashMap<>();
        flatten("", record, values);
        return values;
    }

    private static void flatten(String prefix, Record record, Map<String, Object> into) {
        for (RecordComponent component : record.getClass().getRecordComponents()) {
            Object value;
            try {
                value = component.getAccessor().invoke(record);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + component, e);
            }
            String name = prefix + Character.toUpperCase(component.getName().charAt(0)) + component.getName().substring(1);
            if (value instanceof Record nested) {
                flatten(name, nested, into);
            } else {
                into.put(name, value);
            }
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Object value = flatten(snapshots.get()).get(attribute);
        if (value == null) {
            throw new AttributeNotFoundException("no attribute " + attribute);
        }
        return value;
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        Map<String, Object> values = flatten(snapshots.get());
        AttributeList list = new AttributeList();
        for (String attribute : attributes) {
            if (values.containsKey(attribute)) {
                list.add(new Attribute(attribute, values.get(attribute)));
            }
        }
        return list;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException("read-only: " + attribute.getName());
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws ReflectionException {
        throw new ReflectionException(new NoSuchMethodException(actionName), "no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
