package io.purgatory.benchmarks.kafka;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs {@link KafkaApiWorkload} on stock Kafka and on purgatory-kafka, each run in a JVM of its own,
 * alternating which side goes first from round to round, and prints every run's line, then the
 * median of each figure per side and the module's ratio to stock.
 *
 * <p>The stock side's class path is this JVM's ({@code benchmarks.jar}, with kafka-server-common in
 * it); the module's puts {@code --module-jar} ahead of it, as an operator puts the jar ahead of
 * Kafka's. Run: {@code java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.kafka.KafkaSideBySide
 * --module-jar purgatory-kafka/kafka-4.4/target/purgatory-kafka-4.4-0.1.0-SNAPSHOT.jar --rounds 3 -- --mode throughput --keys 3}.
 * Not thread-safe: run once per JVM.
 */
@Command(name = "kafka-side-by-side", mixinStandardHelpOptions = true,
        description = "KafkaApiWorkload on stock Kafka and on purgatory-kafka, alternated, each run in its own JVM.")
public final class KafkaSideBySide implements Callable<Integer> {

    @Option(names = "--module-jar", required = true, description = "purgatory-kafka's jar")
    Path moduleJar;
    @Option(names = "--rounds", defaultValue = "3")
    int rounds;
    @Option(names = "--heap", defaultValue = "2g", description = "-Xms and -Xmx of each run")
    String heap;
    @CommandLine.Parameters(description = "the workload's options")
    List<String> workload = new ArrayList<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new KafkaSideBySide()).setParameterExceptionHandler((e, a) -> {
            System.err.println(e.getMessage());
            return 2;
        }).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(moduleJar) || rounds < 1) {
            System.err.println("--module-jar must be purgatory-kafka's jar (" + moduleJar + " is not a file) and --rounds positive");
            return 2;
        }
        String stockClassPath = System.getProperty("java.class.path");
        Map<String, List<Map<String, Double>>> figures = new LinkedHashMap<>();
        figures.put("stock", new ArrayList<>());
        figures.put("module", new ArrayList<>());
        for (int round = 0; round < rounds; round++) {
            List<String> order = round % 2 == 0 ? List.of("stock", "module") : List.of("module", "stock");
            for (String side : order) {
                String classPath = side.equals("stock") ? stockClassPath : moduleJar.toAbsolutePath() + File.pathSeparator + stockClassPath;
                String line = run(classPath);
                System.out.println("round " + (round + 1) + ": " + line);
                Map<String, Double> parsed = parse(line);
                if (!parsed.containsKey(side)) {
                    System.err.println("the " + side + " run ran the other side's classes: " + line);
                    return 1;
                }
                figures.get(side).add(parsed);
            }
        }
        Map<String, Double> stock = medians(figures.get("stock"));
        Map<String, Double> module = medians(figures.get("module"));
        System.out.println("median of " + rounds + " rounds: figure, stock, module, module/stock");
        for (Map.Entry<String, Double> figure : stock.entrySet()) {
            Double ours = module.get(figure.getKey());
            if (ours != null) {
                System.out.printf(Locale.ROOT, "%s %.1f %.1f %.2f%n", figure.getKey(), figure.getValue(), ours,
                        figure.getValue() == 0 ? Double.NaN : ours / figure.getValue());
            }
        }
        return 0;
    }

    private String run(String classPath) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC", "-cp", classPath, KafkaApiWorkload.class.getName()));
        command.addAll(workload);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String result = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("side=")) {
                    result = line;
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || result == null) {
            throw new IllegalStateException("the workload exited with " + exit + " and no result: " + command);
        }
        return result;
    }

    /** The numeric figures of a result line, plus a marker key for its side. */
    private static Map<String, Double> parse(String line) {
        Map<String, Double> parsed = new LinkedHashMap<>();
        for (String pair : line.split(" ")) {
            String[] kv = pair.split("=", 2);
            if (kv.length == 2 && kv[0].equals("side")) {
                parsed.put(kv[1], 1.0);
            } else if (kv.length == 2) {
                try {
                    parsed.put(kv[0], Double.parseDouble(kv[1]));
                } catch (NumberFormatException notAFigure) {
                    // mode=..., a word: not a figure
                }
            }
        }
        return parsed;
    }

    private static Map<String, Double> medians(List<Map<String, Double>> runs) {
        Map<String, Double> medians = new LinkedHashMap<>();
        for (String key : runs.get(0).keySet()) {
            if (key.equals("stock") || key.equals("module")) {
                continue;
            }
            double[] values = runs.stream().mapToDouble(r -> r.getOrDefault(key, Double.NaN)).sorted().toArray();
            medians.put(key, values.length % 2 == 1 ? values[values.length / 2]
                    : (values[values.length / 2 - 1] + values[values.length / 2]) / 2);
        }
        return medians;
    }
}
