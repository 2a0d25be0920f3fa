package org.d2l.multigpu.step;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * When each phase of one training step ran on each replica, in milliseconds from the step's start: a few clock
 * readings per replica and phase, safe to add from the replicas' threads at once. A phase that concerns every
 * replica (a collective) is one span on each of them.
 */
public final class StepPhases {

    /** Phase {@code phase} of replica {@code replica}, from {@code start} to {@code end} milliseconds. */
    public record Span(int replica, Phase phase, double start, double end) {

        /** Its length in milliseconds. */
        public double millis() {
            return end - start;
        }
    }

    private final int replicas;
    private final long origin;
    private final List<Span> spans = new ArrayList<>();

    /** An empty record of a step of {@code replicas} replicas, its clock starting now. */
    public StepPhases(int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("a step has at least 1 replica, got " + replicas + ".");
        }
        this.replicas = replicas;
        this.origin = System.nanoTime();
    }

    /** The clock, in nanoseconds (System.nanoTime), to pass as the start of a phase to {@link #add}. */
    public static long now() {
        return System.nanoTime();
    }

    /** Adds phase {@code phase} of replicas {@code from} to {@code to - 1}, from {@code startNanos} ({@link #now}) to now. */
    public void add(int from, int to, Phase phase, long startNanos) {
        long end = System.nanoTime();
        if (from < 0 || to > replicas || from >= to) {
            throw new IllegalArgumentException("this step has replicas 0 to " + (replicas - 1) + ", got " + from + " to "
                    + (to - 1) + ".");
        }
        double s = (startNanos - origin) / 1e6;
        double e = (end - origin) / 1e6;
        synchronized (spans) {
            for (int r = from; r < to; r++) {
                spans.add(new Span(r, phase, s, e));
            }
        }
    }

    /** Adds phase {@code phase} of replica {@code replica}, from {@code startNanos} ({@link #now}) to now. */
    public void add(int replica, Phase phase, long startNanos) {
        add(replica, replica + 1, phase, startNanos);
    }

    /** Runs {@code work} as phase {@code phase} of replica {@code replica} and returns its result. */
    public <T> T time(int replica, Phase phase, Supplier<T> work) {
        long start = now();
        T result = work.get();
        add(replica, phase, start);
        return result;
    }

    /** The milliseconds from the start of {@code earlier}, another step's record, to the start of this one. */
    public double millisSince(StepPhases earlier) {
        return (origin - earlier.origin) / 1e6;
    }

    /** The number of replicas of the step. */
    public int replicas() {
        return replicas;
    }

    /** The spans in order of their start. */
    public List<Span> spans() {
        synchronized (spans) {
            return spans.stream().sorted(Comparator.comparingDouble(Span::start)).toList();
        }
    }

    /** The milliseconds replica {@code replica} spent in phase {@code phase}. */
    public double millis(int replica, Phase phase) {
        return spans().stream().filter(s -> s.replica() == replica && s.phase() == phase).mapToDouble(Span::millis).sum();
    }

    /** When replica {@code replica} first began phase {@code phase}, in milliseconds; NaN when it never did. */
    public double start(int replica, Phase phase) {
        return spans().stream().filter(s -> s.replica() == replica && s.phase() == phase).mapToDouble(Span::start).min()
                .orElse(Double.NaN);
    }

    /** When replica {@code replica} last ended phase {@code phase}, in milliseconds; NaN when it never began it. */
    public double end(int replica, Phase phase) {
        return spans().stream().filter(s -> s.replica() == replica && s.phase() == phase).mapToDouble(Span::end).max()
                .orElse(Double.NaN);
    }

    /** From the step's start to the end of its last span, in milliseconds. */
    public double span() {
        return spans().stream().mapToDouble(Span::end).max().orElse(0);
    }
}
