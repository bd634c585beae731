package io.purgatory.examples.redis;

/**
 * A command refused, with the error line Redis gives for it ({@code ERR} is added to a message
 * that has no code of its own: see {@link Reply#error}). Nothing has changed when it is thrown.
 */
final class CommandError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CommandError(String message) {
        super(message, null, false, false);
    }

    /** Redis's arity error, named as Redis names the command ({@code blpop}, {@code client|setname}). */
    static CommandError arity(String name) {
        return new CommandError("wrong number of arguments for '" + name + "' command");
    }

    static CommandError syntax() {
        return new CommandError("syntax error");
    }
}
