package io.purgatory.kafka.brokertests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Which of Kafka's test classes link against a line's broker classes: for each class, in a JVM on the line's class
 * path, the class, its superclasses and its nested classes are loaded and their declared fields, methods and
 * constructors resolved, as JUnit's discovery does. A class whose signatures name a class or member that the
 * line's broker jars lack fails there with a {@link LinkageError}, and JUnit would fail discovery on it (which,
 * with the console launcher 1.13, fails the whole run). Immutable.
 *
 * @param unlinked each class that does not link, with the error (its first line)
 */
record TestClassLinkage(Map<String, String> unlinked) {

    private static final String LINKS = "links ";
    private static final String UNLINKED = "unlinked ";

    TestClassLinkage {
        unlinked = Collections.unmodifiableMap(new TreeMap<>(unlinked));
    }

    /**
     * Probes {@code testClasses} in a JVM of their own on {@code classPath} (this class's own location added), and
     * writes what it printed to {@code output}.
     */
    static TestClassLinkage probe(List<Path> classPath, List<String> testClasses, Path output)
            throws IOException, InterruptedException {
        List<String> entries = new ArrayList<>();
        try {
            entries.add(Path.of(TestClassLinkage.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        } catch (java.net.URISyntaxException e) {
            throw new IOException("where is " + TestClassLinkage.class + "?", e);
        }
        classPath.forEach(p -> entries.add(p.toString()));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(java.io.File.pathSeparator, entries), TestClassLinkage.class.getName()));
        command.addAll(testClasses);
        Files.createDirectories(output.getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new IllegalStateException("the linkage probe did not finish: " + output);
        }
        Map<String, String> unlinked = new TreeMap<>();
        List<String> linked = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            if (line.startsWith(LINKS)) {
                linked.add(line.substring(LINKS.length()).split(" ")[0]);
            } else if (line.startsWith(UNLINKED)) {
                String rest = line.substring(UNLINKED.length());
                int space = rest.indexOf(' ');
                unlinked.put(rest.substring(0, space), rest.substring(space + 1));
            }
        }
        if (process.exitValue() != 0 || linked.size() + unlinked.size() != testClasses.size()) {
            throw new IllegalStateException("the linkage probe (exit " + process.exitValue() + ") did not report on each of "
                    + testClasses + ": see " + output);
        }
        return new TestClassLinkage(unlinked);
    }

    /** The probe's JVM: prints {@code links <class> <n> members} or {@code unlinked <class> <error>} for each class named. */
    public static void main(String[] classNames) {
        for (String name : classNames) {
            try {
                int members = resolve(Class.forName(name, false, TestClassLinkage.class.getClassLoader()), new HashSet<>());
                System.out.println(LINKS + name + " " + members + " members");
            } catch (LinkageError | ClassNotFoundException e) {
                System.out.println(UNLINKED + name + " " + e.toString().lines().findFirst().orElse(""));
            }
        }
    }

    /**
     * Resolves the signatures of {@code type}, its superclasses and their nested classes, each once.
     *
     * @return how many fields, methods and constructors were resolved
     */
    private static int resolve(Class<?> type, Set<Class<?>> resolved) {
        int members = 0;
        for (Class<?> c = type; c != null && c != Object.class && resolved.add(c); c = c.getSuperclass()) {
            members += c.getDeclaredFields().length + c.getDeclaredMethods().length + c.getDeclaredConstructors().length;
            for (Class<?> nested : c.getDeclaredClasses()) {
                members += resolve(nested, resolved);
            }
        }
        return members;
    }
}
