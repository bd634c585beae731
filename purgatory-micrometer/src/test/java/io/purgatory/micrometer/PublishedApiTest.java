package io.purgatory.micrometer;

import static org.junit.jupiter.api.Assertions.fail;

import io.purgatory.DelayedOperationPurgatory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The compatibility guard: the public API of each published module (purgatory-core and this one)
 * is recorded in {@code <module>/api/<module>.api}, one line per public type and per public or
 * protected member, as reflection prints them; this test fails, naming every line that differs,
 * when the compiled classes no longer match the file. Changing the API is then changing that file
 * in the same commit, visibly. {@code io.purgatory.internal} is not recorded: it is not for
 * applications. It lives here because this module's tests see both modules' classes.
 *
 * <p>To accept a change, regenerate the files with {@value #UPDATE_COMMAND} and commit them.
 */
class PublishedApiTest {

    static final String UPDATE_COMMAND = "mvn -B -q -pl purgatory-core,purgatory-micrometer -am test"
            + " -Dtest=PublishedApiTest -Dsurefire.failIfNoSpecifiedTests=false -Dapi.update=true";

    @Test
    void purgatoryCoreMatchesItsRecordedApi() {
        check("purgatory-core", DelayedOperationPurgatory.class);
    }

    @Test
    void purgatoryMicrometerMatchesItsRecordedApi() {
        check("purgatory-micrometer", PurgatoryMeterBinder.class);
    }

    private static void check(String module, Class<?> anyClassOfIt) {
        Path file = Path.of("..", module, "api", module + ".api");
        List<String> actual = dump(anyClassOfIt);
        if (Boolean.getBoolean("api.update")) {
            write(file, actual);
            return;
        }
        List<String> recorded = read(file);
        if (recorded.equals(actual)) {
            return;
        }
        Set<String> removed = new LinkedHashSet<>(recorded);
        removed.removeAll(actual);
        Set<String> added = new LinkedHashSet<>(actual);
        added.removeAll(recorded);
        StringBuilder message = new StringBuilder("The public API of " + module + " differs from " + file.normalize() + ":\n");
        removed.forEach(line -> message.append("  removed: ").append(line.strip()).append('\n'));
        added.forEach(line -> message.append("  added:   ").append(line.strip()).append('\n'));
        if (removed.isEmpty() && added.isEmpty()) {
            message.append("  (the same lines in another order or place)\n");
        }
        message.append("If the change is intended, regenerate the file with\n  ").append(UPDATE_COMMAND)
                .append("\nand commit it with the change.");
        fail(message.toString());
    }

    /** The module's API: each public type (sorted by name) with its public and protected members (sorted). */
    static List<String> dump(Class<?> anyClassOfModule) {
        List<String> lines = new ArrayList<>();
        for (String name : classNames(anyClassOfModule)) {
            Class<?> c;
            try {
                c = Class.forName(name, false, anyClassOfModule.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            if (!isApi(c)) {
                continue;
            }
            lines.add(header(c));
            Set<String> members = new TreeSet<>();
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                if (visible(k) && !k.isSynthetic()) {
                    members.add(k.toGenericString());
                }
            }
            for (Method m : c.getDeclaredMethods()) {
                if (visible(m) && !m.isSynthetic() && !m.isBridge()) {
                    members.add(m.toGenericString());
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if (visible(f) && !f.isSynthetic()) {
                    members.add(f.toGenericString());
                }
            }
            members.forEach(m -> lines.add("  " + m));
        }
        return lines;
    }

    private static boolean isApi(Class<?> c) {
        if (c.getPackageName().contains(".internal") || c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
            return false;
        }
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean visible(Member member) {
        int mods = member.getModifiers();
        return Modifier.isPublic(mods) || Modifier.isProtected(mods);
    }

    private static String header(Class<?> c) {
        StringBuilder h = new StringBuilder(c.toGenericString());
        Type superclass = c.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && !c.isEnum() && !c.isRecord()) {
            h.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = c.getGenericInterfaces();
        if (interfaces.length > 0) {
            h.append(c.isInterface() ? " extends " : " implements ")
                    .append(String.join(", ", Arrays.stream(interfaces).map(Type::getTypeName).toList()));
        }
        return h.toString();
    }

    /** The names of the classes in the directory or jar that {@code anyClass} was loaded from, sorted. */
    private static Set<String> classNames(Class<?> anyClass) {
        Path location;
        try {
            location = Path.of(anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Set<String> names = new TreeSet<>();
        try {
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.walk(location)) {
                    files.map(location::relativize).map(Path::toString).filter(p -> p.endsWith(".class"))
                            .forEach(p -> names.add(toClassName(p.replace(location.getFileSystem().getSeparator(), "/"))));
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
                            .forEach(n -> names.add(toClassName(n)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        names.removeIf(n -> n.endsWith("package-info") || n.endsWith("module-info"));
        return names;
    }

    private static String toClassName(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("no recorded API at " + file.normalize() + "; make it with " + UPDATE_COMMAND, e);
        }
    }

    private static void write(Path file, List<String> lines) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
