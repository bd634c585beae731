package io.purgatory.demo.client;

import picocli.CommandLine;

/** {@link ClientOptions} and {@link ConsumeOptions} as the {@code demo-client} command line makes them: its defaults, checked. */
final class CommandLineOptions {

    private CommandLineOptions() {
    }

    /** The options for these arguments, the rest at their defaults. */
    static ClientOptions parse(String... args) {
        CommandLine commandLine = ClientMain.commandLine();
        commandLine.parseArgs(args);
        return commandLine.<ClientMain>getCommand().options();
    }

    /** The consumer's options for these arguments, the rest at their defaults. */
    static ConsumeOptions parseConsume(String... args) {
        CommandLine commandLine = ClientMain.commandLine();
        commandLine.parseArgs(args);
        return commandLine.<ClientMain>getCommand().consumeOptions();
    }
}
