package io.purgatory.kafka.brokertests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of Kafka's published tests in a JVM of its own, through JUnit's console launcher of the version the
 * test jars were built with: {@code java -cp <class path> ConsoleLauncher execute --select-class ...}. The run
 * writes JUnit's XML report and a log of every class the JVM loaded with the file it came from, both in its
 * directory. Not thread-safe; one instance is one run.
 *
 * @param classPath the child JVM's class path, in order (the module's jar first in a run on the module)
 * @param testClasses the test classes to select
 * @param dir where the report, the class-load log and the console output go (created)
 */
record KafkaTestRun(List<Path> classPath, List<String> testClasses, Path dir) {

    private static final long TIMEOUT_MINUTES = 20;

    /** Runs the tests and reads their outcomes and the loaded classes' sources. */
    RunResult run() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path reports = dir.resolve("reports");
        Path classLoads = dir.resolve("class-load.log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx2g");
        command.add("-Xlog:class+load=info:file=" + classLoads);
        command.add("-cp");
        command.add(String.join(java.io.File.pathSeparator, classPath.stream().map(Path::toString).toList()));
        command.add("org.junit.platform.console.ConsoleLauncher");
        command.add("execute");
        command.add("--disable-banner");
        command.add("--details=summary");
        command.add("--reports-dir=" + reports);
        for (String testClass : testClasses) {
            command.add("--select-class=" + testClass);
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("console.log").toFile())
                .start();
        if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new IllegalStateException("Kafka's tests did not finish in " + TIMEOUT_MINUTES + " minutes: " + dir);
        }
        Path report = reports.resolve("TEST-junit-jupiter.xml");
        if (!Files.exists(report)) {
            throw new IllegalStateException("the console launcher wrote no report (exit " + process.exitValue()
                    + "); see " + dir.resolve("console.log"));
        }
        return new RunResult(TestOutcomes.read(report), ClassSources.read(classLoads));
    }

    /** What one run saw: each test's outcome and where each loaded class came from. */
    record RunResult(TestOutcomes outcomes, ClassSources classSources) {
    }
}
