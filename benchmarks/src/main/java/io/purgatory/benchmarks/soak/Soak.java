package io.purgatory.benchmarks.soak;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The soak: millions of operations through our {@code DelayedOperationPurgatory} with completion,
 * expiry, {@code cancelForKey} and {@code close} racing, checking that every operation is answered
 * exactly once and that {@code numDelayed()} and {@code watched()} come back to 0. Prints a one-line
 * verdict; exits 1 on any violation. See {@code --help} and docs/benchmarks.md.
 *
 * <p>Not thread-safe; a command-line main (the threads are each round's, see {@link SoakRound}).
 */
@Command(name = "soak", sortOptions = false, showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Offers --operations operations to io.purgatory.DelayedOperationPurgatory in rounds of --round-size, "
                    + "a fresh purgatory per round, and checks that each was answered exactly once.",
            "",
            "In a round, --threads workers offer operations, half watching plain keys (tryCompleteElseWatch "
                    + "with keys, completed by checkAndComplete), half a position (tryCompleteElseWatch with "
                    + "key and position, completed by advance). After each offer a worker moves a random key's "
                    + "position up and calls advance and checkAndComplete on it. Timeouts are 1 to "
                    + "--max-timeout-ms and a tenth of the operations wait for a position never reached, so "
                    + "the timer expires a share while workers complete others. A canceller thread calls "
                    + "cancelForKey on a random key every 50-250 us, which completes what it removes as cancelled.",
            "Rounds alternate: a racing round is closed while the workers still offer (what they offer "
                    + "afterwards expires at once); a draining round waits until every operation is answered, "
                    + "requires numDelayed() == 0 (and watched() == 0 with purgeInterval 0), then closes. "
                    + "Every other pair of rounds uses purgeInterval 0 instead of the default 1000.",
            "After each round: every operation answered exactly once (one onComplete; onExpiration only if "
                    + "it expired; completed + expired + cancelled == offered) and numDelayed() == watched() "
                    + "== 0. Exit status 0 if all held, 1 otherwise.",
            ""},
        footer = {
            "",
            "Example: java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.soak.Soak "
                    + "--operations 10000000 --threads 4"})
public final class Soak implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--operations", description = "Operations offered in all.")
    private long operations = 10_000_000;

    @Option(names = "--threads", description = "Worker threads offering and completing.")
    private int threads = 4;

    @Option(names = "--round-size", description = "Operations per round; each round has its own purgatory.")
    private int roundSize = 50_000;

    @Option(names = "--keys", description = "Keys (each both a plain key and a position key).")
    private int keys = 16;

    @Option(names = "--max-timeout-ms", description = "Timeouts are drawn uniformly from 1 ms to this.")
    private int maxTimeoutMs = 20;

    @Option(names = "--seed", description = "Seed of the draws.")
    private long seed = 1;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Soak()).execute(args));
    }

    @Override
    public Integer call() {
        SoakConfig config;
        try {
            config = new SoakConfig(operations, threads, roundSize, keys, maxTimeoutMs, seed);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        long start = System.nanoTime();
        SoakTally tally = run(config);
        tally.violations().forEach(System.out::println);
        System.out.println(tally.verdict((System.nanoTime() - start) / 1e9));
        return tally.passed() ? 0 : 1;
    }

    /** Runs every round: racing and draining close alternate, purgeInterval 1000 and 0 every other pair. */
    static SoakTally run(SoakConfig config) {
        SoakTally tally = new SoakTally();
        int round = 0;
        for (long left = config.operations(); left > 0; left -= config.roundSize(), round++) {
            boolean racingClose = round % 2 == 0;
            int purgeInterval = round / 2 % 2 == 0 ? 1000 : 0;
            int size = (int) Math.min(left, config.roundSize());
            new SoakRound(config, round, size, racingClose, purgeInterval, tally).run();
        }
        return tally;
    }
}
