package org.d2l.multigpu.modelparallel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * When each pass of a pipeline ran on each stage, simulated ({@link Schedule#simulate}) or measured as it ran
 * ({@link #time}, safe to call from the stages' threads at once), and how long each stage sat idle.
 */
public final class Timeline {

    /** One pass on one stage, from {@code start} to {@code end} (milliseconds for a measured timeline). */
    public record Entry(int stage, Schedule.Op op, double start, double end) {}

    private final int stages;
    private final List<Entry> entries = new ArrayList<>();
    private final long origin = System.nanoTime();

    /** An empty timeline of {@code stages} stages; a measured one counts its milliseconds from now. */
    public Timeline(int stages) {
        if (stages < 1) {
            throw new IllegalArgumentException("a pipeline has at least 1 stage, got " + stages + ".");
        }
        this.stages = stages;
    }

    /** Adds a pass of {@code stage} that ran from {@code start} to {@code end}. */
    public synchronized void add(int stage, Schedule.Op op, double start, double end) {
        if (stage < 0 || stage >= stages) {
            throw new IllegalArgumentException("this timeline has stages 0 to " + (stages - 1) + ", not " + stage + ".");
        }
        if (!(end >= start)) {
            throw new IllegalArgumentException("a pass ends after it starts, got " + start + " to " + end + ".");
        }
        entries.add(new Entry(stage, op, start, end));
    }

    /** Runs {@code pass}, the pass {@code op} of {@code stage}, and adds it with the milliseconds it took. */
    public <T> T time(int stage, Schedule.Op op, Supplier<T> pass) {
        double start = now();
        T result = pass.get();
        add(stage, op, start, now());
        return result;
    }

    private double now() {
        return (System.nanoTime() - origin) / 1e6;
    }

    /** The number of stages. */
    public int stages() {
        return stages;
    }

    /** The passes in order of their start. */
    public synchronized List<Entry> entries() {
        return entries.stream().sorted(Comparator.comparingDouble(Entry::start)).toList();
    }

    /** From the first pass's start to the last pass's end. */
    public synchronized double span() {
        if (entries.isEmpty()) {
            return 0;
        }
        return entries.stream().mapToDouble(Entry::end).max().getAsDouble()
                - entries.stream().mapToDouble(Entry::start).min().getAsDouble();
    }

    /** The time {@code stage} spent in its passes. */
    public synchronized double busy(int stage) {
        return entries.stream().filter(e -> e.stage() == stage).mapToDouble(e -> e.end() - e.start()).sum();
    }

    /** The fraction of the span that {@code stage} was not in a pass. */
    public double idleFraction(int stage) {
        double span = span();
        return span == 0 ? 0 : 1 - busy(stage) / span;
    }

    /** The idle fraction averaged over the stages: the pipeline's bubble. */
    public double idleFraction() {
        double sum = 0;
        for (int s = 0; s < stages; s++) {
            sum += idleFraction(s);
        }
        return sum / stages;
    }

    /** The passes as a table: stage, pass (F3, B3, ...), start, end. */
    public Table table() {
        List<Entry> list = entries();
        return Table.create("timeline",
                IntColumn.create("stage", list.stream().mapToInt(Entry::stage).toArray()),
                StringColumn.create("pass", list.stream().map(e -> e.op().toString()).toList()),
                DoubleColumn.create("start", list.stream().mapToDouble(Entry::start)),
                DoubleColumn.create("end", list.stream().mapToDouble(Entry::end)));
    }
}
