package org.d2l.multigpu.bench.harness;

import java.util.List;
import picocli.CommandLine;

/**
 * Reads a benchmark's command line into an object whose fields carry picocli's {@code @Option}
 * annotations, failing with picocli's message (or the options' own check) followed by the usage.
 */
public final class Cli {

    /** Options that check themselves once their fields are filled. */
    public interface Checked {
        /** Throws an {@link IllegalArgumentException} that says which option is wrong and what to use instead. */
        void check();
    }

    private Cli() {}

    /**
     * Fills {@code options} from {@code args} (an option given twice takes its last value) and returns it;
     * a bad command line throws an {@link IllegalArgumentException}.
     */
    public static <T> T parse(T options, String... args) {
        // a later value of an option wins: bench/run.sh's settings come first, the user's BENCH_ARGS after them
        CommandLine cl = new CommandLine(options).setOverwrittenOptionsAllowed(true);
        try {
            cl.parseArgs(args);
            if (options instanceof Checked) {
                ((Checked) options).check();
            }
        } catch (CommandLine.ParameterException | IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + System.lineSeparator() + cl.getUsageMessage(), e);
        }
        return options;
    }

    /** As {@link #parse}, but a bad command line prints its message and the usage and exits with status 2. */
    public static <T> T parseOrExit(T options, String... args) {
        try {
            return parse(options, args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            throw e; // not reached
        }
    }

    /** Fails unless {@code value} is one of {@code allowed}, naming the option and the values it takes. */
    public static String oneOf(String option, String value, List<String> allowed) {
        if (!allowed.contains(value)) {
            throw new IllegalArgumentException(option + ": unknown value '" + value + "'; use one of "
                    + String.join(", ", allowed));
        }
        return value;
    }

    /** Fails unless {@code value} (when given) is at least {@code min}, naming the option. */
    public static void atLeast(String option, Integer value, int min) {
        if (value != null && value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", got " + value);
        }
    }
}
