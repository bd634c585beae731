package io.purgatory.kafka.brokertests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipFile;

/**
 * One Kafka line as the broker tests see it: the Kafka version whose broker classes are tested, the class path of
 * that version's broker and of the published tests (written by {@code lines/<version>/pom.xml}), and the
 * module's jar for the line. Immutable.
 *
 * @param line the Kafka line, {@code 4.3}
 * @param version the Kafka version of the broker classes, {@code 4.3.1}
 * @param classPath the stock class path: Kafka's jars, the test jars, JUnit's console launcher
 * @param moduleJar the module's jar for this line, put first on the class path in the run on the module
 * @param unlinkedTestClasses the test classes known not to link against this line's broker classes, which the line
 *     does not run (written in {@code lines/<version>/unlinked-test-classes.txt}; none if there is no such file)
 */
record KafkaLine(String line, String version, List<Path> classPath, Path moduleJar, Set<String> unlinkedTestClasses) {

    /** Beside a line's pom: one test class a line, read with {@link #readNames}. */
    static final String UNLINKED_FILE = "unlinked-test-classes.txt";

    KafkaLine {
        classPath = List.copyOf(classPath);
        unlinkedTestClasses = Set.copyOf(unlinkedTestClasses);
    }

    /**
     * Reads {@code line=version} pairs separated by commas, the class path of each from
     * {@code <linesDir>/<version>/target/broker-tests.classpath}, each line's jar from
     * {@code moduleJarPattern} with {@code {line}} replaced by the line, and the test classes that do not link from
     * {@code <linesDir>/<version>/}{@value #UNLINKED_FILE}.
     */
    static List<KafkaLine> parse(String lines, Path linesDir, String moduleJarPattern) throws IOException {
        List<KafkaLine> parsed = new java.util.ArrayList<>();
        for (String pair : lines.split(",")) {
            String[] lineAndVersion = pair.strip().split("=");
            if (lineAndVersion.length != 2) {
                throw new IllegalArgumentException("expected line=version, got '" + pair + "' in '" + lines + "'");
            }
            Path file = linesDir.resolve(lineAndVersion[1]).resolve("target/broker-tests.classpath");
            List<Path> classPath = Arrays.stream(Files.readString(file).strip().split(java.io.File.pathSeparator))
                    .map(Path::of).toList();
            Path moduleJar = Path.of(moduleJarPattern.replace("{line}", lineAndVersion[0]));
            Path unlinkedFile = linesDir.resolve(lineAndVersion[1]).resolve(UNLINKED_FILE);
            Set<String> unlinked = Files.exists(unlinkedFile) ? readNames(unlinkedFile) : Set.of();
            parsed.add(new KafkaLine(lineAndVersion[0], lineAndVersion[1], classPath, moduleJar, unlinked));
        }
        return parsed;
    }

    /**
     * Reads a list of names: one a line; a {@code #} that begins a line or follows a blank, to the end of the line,
     * is a comment (a test id's {@code Class#method()} is not); blank lines are skipped.
     */
    static Set<String> readNames(Path file) throws IOException {
        Set<String> names = new TreeSet<>();
        Files.readAllLines(file).stream().map(l -> l.replaceFirst("(^|\\s)#.*", "").strip())
                .filter(l -> !l.isEmpty()).forEach(names::add);
        return names;
    }

    /** The top-level test classes in this line's test jars whose simple names are given, sorted. */
    List<String> testClassesNamed(Set<String> simpleNames) throws IOException {
        Set<String> found = new TreeSet<>();
        for (Path jar : classPath) {
            if (!jar.getFileName().toString().endsWith("-test.jar")) {
                continue;
            }
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                zip.stream().map(e -> e.getName())
                        .filter(n -> n.endsWith(".class") && !n.contains("$"))
                        .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                        .filter(n -> simpleNames.contains(n.substring(n.lastIndexOf('.') + 1)))
                        .forEach(found::add);
            }
        }
        return List.copyOf(found);
    }

    /** The classes the module's jar defines in Kafka's packages (nested ones too). */
    Set<String> moduleKafkaClasses() throws IOException {
        try (ZipFile zip = new ZipFile(moduleJar.toFile())) {
            Set<String> names = new TreeSet<>();
            zip.stream().map(e -> e.getName())
                    .filter(n -> n.startsWith("org/apache/kafka/") && n.endsWith(".class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .forEach(names::add);
            return names;
        }
    }

    /** The class path of the run on the module: the module's jar, then the stock class path. */
    List<Path> moduleClassPath() {
        List<Path> withModule = new java.util.ArrayList<>();
        withModule.add(moduleJar);
        withModule.addAll(classPath);
        return withModule;
    }

    @Override
    public String toString() {
        return "Kafka " + line + " (" + version + ")";
    }
}
