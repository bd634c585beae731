package io.purgatory.examples.redis;

import io.purgatory.examples.redis.Keyspace.End;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Runs one command, Redis's way: checks its arity, then its arguments, then runs it against the
 * {@link Keyspace} and writes its reply. The blocking pops go to {@link BlockingPops}; a pop that
 * has to wait comes back as a {@link Parked} for the connection to answer later. Errors are Redis's
 * own lines ({@code ERR wrong number of arguments for 'blpop' command}, {@code WRONGTYPE ...},
 * {@code ERR unknown command 'x', with args beginning with: ...}).
 *
 * <p>The commands: PING, ECHO, HELLO, SELECT 0, CLIENT (SETNAME, GETNAME, SETINFO, ID), COMMAND
 * (COUNT, DOCS: an empty answer), INFO, QUIT; LPUSH, RPUSH, LPOP, RPOP, LLEN, LRANGE, LMOVE,
 * RPOPLPUSH, BLPOP, BRPOP, BLMOVE, BRPOPLPUSH; DEL, EXISTS, TYPE, SET, GET, DBSIZE, FLUSHDB,
 * FLUSHALL. Thread-safe: its fields are thread-safe; a session is touched only by its own
 * connection's event loop.
 */
final class Commands {

    /** Redis's arities: n exactly, or -n for at least n words, the name included. */
    private static final Map<String, Integer> ARITY = Map.ofEntries(
            Map.entry("ping", -1), Map.entry("echo", 2), Map.entry("hello", -1), Map.entry("select", 2),
            Map.entry("client", -2), Map.entry("command", -1), Map.entry("info", -1), Map.entry("quit", -1),
            Map.entry("lpush", -3), Map.entry("rpush", -3), Map.entry("lpop", -2), Map.entry("rpop", -2),
            Map.entry("llen", 2), Map.entry("lrange", 4), Map.entry("lmove", 5), Map.entry("rpoplpush", 3),
            Map.entry("blpop", -3), Map.entry("brpop", -3), Map.entry("blmove", 6), Map.entry("brpoplpush", 4),
            Map.entry("del", -2), Map.entry("exists", -2), Map.entry("type", 2), Map.entry("set", 3), Map.entry("get", 2),
            Map.entry("dbsize", 1), Map.entry("flushdb", -1), Map.entry("flushall", -1));

    private final Keyspace keyspace;
    private final BlockingPops blockingPops;
    private final ServerStats stats;
    private final Function<@Nullable String, String> info;

    /**
     * @param info INFO's text, of the section named or all
     */
    Commands(Keyspace keyspace, BlockingPops blockingPops, ServerStats stats, Function<@Nullable String, String> info) {
        this.keyspace = keyspace;
        this.blockingPops = blockingPops;
        this.stats = stats;
        this.info = info;
    }

    /**
     * Runs command for session. Writes its reply to reply and returns null, or, for a blocking
     * pop that has to wait, writes nothing and returns the parked pop.
     */
    @Nullable Parked execute(Session session, Command command, Reply reply) {
        stats.commandsProcessed.increment();
        String name = command.name();
        Integer arity = ARITY.get(name);
        try {
            if (arity == null) {
                throw unknown(command);
            }
            if (arity >= 0 ? command.size() != arity : command.size() < -arity) {
                throw CommandError.arity(name);
            }
            return run(session, name, command, reply);
        } catch (CommandError | Keyspace.WrongTypeException e) {
            reply.error(String.valueOf(e.getMessage()));
            return null;
        }
    }

    private @Nullable Parked run(Session session, String name, Command c, Reply reply) {
        switch (name) {
            case "blpop" -> {
                return blockingPops.pop(c, End.LEFT, reply);
            }
            case "brpop" -> {
                return blockingPops.pop(c, End.RIGHT, reply);
            }
            case "blmove" -> {
                return blockingPops.move(c, Arguments.end(c.text(3)), Arguments.end(c.text(4)), c.text(5), reply);
            }
            case "brpoplpush" -> {
                return blockingPops.move(c, End.RIGHT, End.LEFT, c.text(3), reply);
            }
            case "lpush", "rpush" -> {
                String key = c.text(1);
                int length = keyspace.push(key, name.equals("lpush") ? End.LEFT : End.RIGHT, c.arguments().subList(2, c.size()));
                blockingPops.offered(key);
                reply.integer(length);
            }
            case "lpop", "rpop" -> pop(c, name.equals("lpop") ? End.LEFT : End.RIGHT, reply);
            case "lmove" -> move(c, Arguments.end(c.text(3)), Arguments.end(c.text(4)), reply);
            case "rpoplpush" -> move(c, End.RIGHT, End.LEFT, reply);
            case "llen" -> reply.integer(keyspace.length(c.text(1)));
            case "lrange" -> reply.array(keyspace.range(c.text(1), Arguments.integer(c.text(2)), Arguments.integer(c.text(3))));
            case "del" -> reply.integer(keyspace.delete(texts(c, 1)));
            case "exists" -> reply.integer(texts(c, 1).stream().filter(key -> !keyspace.type(key).equals("none")).count());
            case "type" -> reply.simple(keyspace.type(c.text(1)));
            case "set" -> {
                keyspace.set(c.text(1), c.bytes(2));
                reply.ok();
            }
            case "get" -> {
                byte[] value = keyspace.get(c.text(1));
                if (value == null) {
                    reply.nullBulk();
                } else {
                    reply.bulk(value);
                }
            }
            case "dbsize" -> reply.integer(keyspace.size());
            case "flushdb", "flushall" -> {
                keyspace.clear();
                reply.ok();
            }
            default -> connection(session, name, c, reply);
        }
        return null;
    }

    /** LPOP key [count], RPOP key [count]. */
    private void pop(Command c, End end, Reply reply) {
        if (c.size() > 3) {
            throw CommandError.arity(c.name());
        }
        String key = c.text(1);
        if (c.size() == 2) {
            byte[] value = keyspace.pop(key, end);
            if (value == null) {
                reply.nullBulk();
            } else {
                reply.bulk(value);
            }
            return;
        }
        long count = Arguments.integer(c.text(2));
        if (count < 0) {
            throw new CommandError("value is out of range, must be positive");
        }
        if (!keyspace.isList(key)) {
            reply.nullArray();
        } else {
            reply.array(keyspace.pop(key, end, count));
        }
    }

    /** LMOVE and RPOPLPUSH: the value moved, or a null if the source is empty. */
    private void move(Command c, End from, End to, Reply reply) {
        String destination = c.text(2);
        byte[] value = keyspace.move(c.text(1), from, destination, to);
        if (value == null) {
            reply.nullBulk();
            return;
        }
        blockingPops.offered(destination);
        reply.bulk(value);
    }

    /** The commands about the connection rather than the data. */
    private void connection(Session session, String name, Command c, Reply reply) {
        switch (name) {
            case "ping" -> {
                if (c.size() > 2) {
                    throw CommandError.arity(name);
                }
                if (c.size() == 2) {
                    reply.bulk(c.bytes(1));
                } else {
                    reply.simple("PONG");
                }
            }
            case "echo" -> reply.bulk(c.bytes(1));
            case "hello" -> hello(session, c, reply);
            case "select" -> {
                long index = Arguments.integer(c.text(1));
                if (index != 0) {
                    throw new CommandError("DB index is out of range");
                }
                reply.ok();
            }
            case "client" -> client(session, c, reply);
            case "command" -> command(c, reply);
            case "info" -> reply.text(info.apply(c.size() > 1 ? c.text(1) : null));
            case "quit" -> reply.ok();
            default -> throw new IllegalStateException("no command " + name);
        }
    }

    /** HELLO [protover [AUTH username password] [SETNAME name]]: there is no password to check; any is accepted. */
    private void hello(Session session, Command c, Reply reply) {
        int protocol = session.protocol;
        if (c.size() > 1) {
            long asked;
            try {
                asked = Arguments.integer(c.text(1));
            } catch (CommandError e) {
                throw new CommandError("Protocol version is not an integer or out of range");
            }
            if (asked < 2 || asked > 3) {
                throw new CommandError("NOPROTO unsupported protocol version");
            }
            protocol = (int) asked;
        }
        String name = session.name;
        for (int i = 2; i < c.size(); i++) {
            String option = c.text(i).toLowerCase(java.util.Locale.ROOT);
            if (option.equals("auth") && i + 2 < c.size()) {
                i += 2;
            } else if (option.equals("setname") && i + 1 < c.size()) {
                name = c.text(++i);
            } else {
                throw new CommandError("Syntax error in HELLO option '" + c.text(i) + "'");
            }
        }
        session.protocol = protocol;
        session.name = name;
        Reply answer = new Reply(reply.buffer(), protocol); // HELLO answers in the protocol it switched to
        answer.map(7);
        answer.bulk("server");
        answer.bulk("redis");
        answer.bulk("version");
        answer.bulk(ServerInfo.REDIS_VERSION);
        answer.bulk("proto");
        answer.integer(protocol);
        answer.bulk("id");
        answer.integer(session.id);
        answer.bulk("mode");
        answer.bulk("standalone");
        answer.bulk("role");
        answer.bulk("master");
        answer.bulk("modules");
        answer.array(0);
    }

    /** CLIENT SETNAME, GETNAME, SETINFO, ID. */
    private void client(Session session, Command c, Reply reply) {
        String sub = c.text(1).toLowerCase(java.util.Locale.ROOT);
        int arity = switch (sub) {
            case "setname" -> 3;
            case "getname", "id" -> 2;
            case "setinfo" -> 4;
            default -> throw new CommandError("unknown subcommand '" + truncate(c.text(1)) + "'. Try CLIENT HELP.");
        };
        if (c.size() != arity) {
            throw CommandError.arity("client|" + sub);
        }
        switch (sub) {
            case "setname" -> {
                session.name = c.text(2).isEmpty() ? null : c.text(2);
                reply.ok();
            }
            case "getname" -> {
                if (session.name == null) {
                    reply.nullBulk();
                } else {
                    reply.bulk(session.name);
                }
            }
            case "id" -> reply.integer(session.id);
            default -> {
                String attribute = c.text(2).toLowerCase(java.util.Locale.ROOT);
                if (attribute.equals("lib-name")) {
                    session.libraryName = c.text(3);
                } else if (attribute.equals("lib-ver")) {
                    session.libraryVersion = c.text(3);
                } else {
                    throw new CommandError("Unrecognized option '" + c.text(2) + "'");
                }
                reply.ok();
            }
        }
    }

    /** COMMAND COUNT is the number of commands; COMMAND and COMMAND DOCS give no details (an empty answer). */
    private static void command(Command c, Reply reply) {
        if (c.size() >= 2 && c.text(1).equalsIgnoreCase("count")) {
            reply.integer(ARITY.size());
        } else if (c.size() >= 2 && c.text(1).equalsIgnoreCase("docs")) {
            reply.map(0);
        } else {
            reply.array(0);
        }
    }

    /** Redis's unknown-command line: the name and the first arguments, 128 characters of each at most. */
    private static CommandError unknown(Command c) {
        StringBuilder arguments = new StringBuilder();
        for (int i = 1; i < c.size() && arguments.length() < 128; i++) {
            String argument = c.text(i);
            arguments.append('\'').append(argument, 0, Math.min(argument.length(), 128 - arguments.length())).append("' ");
        }
        return new CommandError("unknown command '" + truncate(c.text(0)) + "', with args beginning with: " + arguments);
    }

    private static String truncate(String text) {
        return text.length() > 128 ? text.substring(0, 128) : text;
    }

    private static List<String> texts(Command c, int from) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < c.size(); i++) {
            texts.add(c.text(i));
        }
        return texts;
    }
}
