package io.purgatory.kafka;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Version safety: every class the module replaces must have every non-private member of Kafka's own
 * class (from the kafka-server-common jar of the version the module is built for), with the same
 * signature and modifiers; Kafka's superclass must be one of its ancestors and Kafka's interfaces
 * implemented. The class's own modifiers must be Kafka's, except that a class final in Kafka may be
 * open in the module (Kafka 3.9's {@code TimerTaskEntry} is open, 4.0's final: one source serves both). On a Kafka upgrade that moves one, this fails and
 * its message lists what moved, class by class.
 *
 * <p>Private members are Kafka's implementation and are not compared. Member classes are compared when
 * they are not private, except those listed in {@link #NOT_COMPARED} with the reason.
 */
class SignatureTest {

    /** Kafka's non-private member classes that the module does without, and why. */
    private static final Map<String, String> NOT_COMPARED = Map.of(
            "org.apache.kafka.server.util.timer.SystemTimerReaper$Reaper",
            "Kafka's package-private reaper thread; no class outside SystemTimerReaper uses it (Kafka 4.4.0's jars, checked with javap)");

    private static final int COMPARED_MODIFIERS = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.PRIVATE
            | Modifier.STATIC | Modifier.FINAL | Modifier.ABSTRACT | Modifier.INTERFACE;

    @Test
    void everyMemberOfKafkasClassesIsTheModulesToo() throws Exception {
        String kafkaVersion = ModuleInfo.get().builtForKafka();
        try (URLClassLoader kafka = kafkaOnly(kafkaVersion)) {
            List<String> moved = new ArrayList<>();
            for (String name : ModuleInfo.get().replacedClasses()) {
                compare(kafka.loadClass(name), Class.forName(name), moved);
            }
            if (!moved.isEmpty()) {
                fail("the module's classes differ from Kafka " + kafkaVersion + "'s; what moved:\n" + String.join("\n", moved));
            }
        }
    }

    private static void compare(Class<?> theirs, Class<?> ours, List<String> moved) {
        String where = theirs.getName() + ": ";
        // a class Kafka makes final may be open in the module (JLS 13.4.2: no binary of Kafka's can extend it either
        // way); one Kafka leaves open must be open in the module too, or a Kafka subclass of it would not load
        int classModifiers = COMPARED_MODIFIERS & (Modifier.isFinal(theirs.getModifiers()) ? ~Modifier.FINAL : ~0);
        if ((theirs.getModifiers() & classModifiers) != (ours.getModifiers() & classModifiers)) {
            moved.add(where + "class modifiers: Kafka's '" + Modifier.toString(theirs.getModifiers() & COMPARED_MODIFIERS)
                    + "', the module's '" + Modifier.toString(ours.getModifiers() & COMPARED_MODIFIERS) + "'");
        }
        // the module may put a class of its own between (TimerTask extends purgatory-core's node): Kafka's
        // superclass must still be an ancestor, and Kafka's interfaces implemented
        List<String> ourAncestors = ancestors(ours);
        if (theirs.getSuperclass() != null && !ourAncestors.contains(theirs.getSuperclass().getName())) {
            moved.add(where + "superclass: Kafka's " + theirs.getSuperclass().getName() + " is not among the module's " + ourAncestors);
        }
        for (Class<?> in : theirs.getInterfaces()) {
            if (!implemented(ours).contains(in.getName())) {
                moved.add(where + "interface " + in.getName() + ": Kafka's class implements it, the module's does not");
            }
        }
        Map<String, Integer> ourMembers = members(ours);
        members(theirs).forEach((signature, modifiers) -> {
            Integer mine = ourMembers.get(signature);
            if (mine == null) {
                moved.add(where + "missing " + Modifier.toString(modifiers) + " " + signature);
            } else if (!mine.equals(modifiers)) {
                moved.add(where + signature + ": Kafka's modifiers '" + Modifier.toString(modifiers)
                        + "', the module's '" + Modifier.toString(mine) + "'");
            }
        });
        for (Class<?> nested : theirs.getDeclaredClasses()) {
            if (Modifier.isPrivate(nested.getModifiers()) || NOT_COMPARED.containsKey(nested.getName())) {
                continue;
            }
            Class<?> mine = Arrays.stream(ours.getDeclaredClasses()).filter(c -> c.getName().equals(nested.getName())).findFirst().orElse(null);
            if (mine == null) {
                moved.add(where + "missing member class " + nested.getName());
            } else {
                compare(nested, mine, moved);
            }
        }
    }

    /** Non-private, non-synthetic members by erased signature, with their compared modifiers. */
    private static Map<String, Integer> members(Class<?> type) {
        Map<String, Integer> members = new TreeMap<>();
        for (Field f : type.getDeclaredFields()) {
            put(members, f, "field " + f.getType().getTypeName() + " " + f.getName());
        }
        for (Method m : type.getDeclaredMethods()) {
            if (!m.isBridge()) {
                put(members, m, "method " + m.getReturnType().getTypeName() + " " + m.getName() + params(m.getParameterTypes()));
            }
        }
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            put(members, c, "constructor " + type.getSimpleName() + params(c.getParameterTypes()));
        }
        return members;
    }

    private static void put(Map<String, Integer> members, Member member, String signature) {
        if (!member.isSynthetic() && !Modifier.isPrivate(member.getModifiers())) {
            members.put(signature, member.getModifiers() & COMPARED_MODIFIERS);
        }
    }

    private static String params(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getTypeName).collect(Collectors.joining(", ", "(", ")"));
    }

    private static List<String> ancestors(Class<?> type) {
        List<String> names = new ArrayList<>();
        for (Class<?> c = type.getSuperclass(); c != null; c = c.getSuperclass()) {
            names.add(c.getName());
        }
        return names;
    }

    private static Set<String> implemented(Class<?> type) {
        Set<String> names = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(type));
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (c.isInterface()) {
                names.add(c.getName());
            }
            if (c.getSuperclass() != null) {
                todo.push(c.getSuperclass());
            }
            todo.addAll(Arrays.asList(c.getInterfaces()));
        }
        return names;
    }

    /**
     * Kafka's classes as Kafka ships them: a loader over the kafka-server-common jar of that version and
     * the jars its signatures name (kafka-clients, slf4j, metrics), without the module's classes.
     */
    private static URLClassLoader kafkaOnly(String kafkaVersion) throws Exception {
        List<URL> urls = new ArrayList<>();
        boolean found = false;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String file = new File(entry).getName();
            if (file.equals("kafka-server-common-" + kafkaVersion + ".jar")) {
                found = true;
                urls.add(new File(entry).toURI().toURL());
            } else if (file.startsWith("kafka-clients-" + kafkaVersion) || file.startsWith("slf4j-api-") || file.startsWith("metrics-core-")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        if (!found) {
            throw new IllegalStateException("kafka-server-common-" + kafkaVersion + ".jar is not on the test class path");
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
}
