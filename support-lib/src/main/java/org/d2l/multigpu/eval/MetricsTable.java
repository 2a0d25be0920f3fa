package org.d2l.multigpu.eval;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.numbers.NumberColumnFormatter;

/** Per-epoch metrics of training runs as a Tablesaw {@link Table}, one row per run and epoch. */
public final class MetricsTable {

    /** Name of the column holding the run's name. */
    public static final String RUN = "run";
    /** Name of the column holding the epoch, counted from 1. */
    public static final String EPOCH = "epoch";

    /** The numeric columns after run and epoch, in order: a new metric is one more line here. */
    public static final Map<String, ToDoubleFunction<EpochRow>> COLUMNS = columns();

    /** Decimals shown when a table is printed, per numeric column (3 unless listed). */
    private static final Map<String, Integer> DECIMALS = Map.of("train loss", 4, "seconds", 1, "examples/s", 0,
            "steps", 0, "median step s", 4, "syncs", 0,
            "MB synced", 1);

    private MetricsTable() {}

    private static Map<String, ToDoubleFunction<EpochRow>> columns() {
        Map<String, ToDoubleFunction<EpochRow>> c = new LinkedHashMap<>();
        c.put("train loss", EpochRow::trainLoss);
        c.put("train acc", EpochRow::trainAccuracy);
        c.put("test acc", EpochRow::testAccuracy);
        c.put("seconds", EpochRow::seconds);
        c.put("examples/s", EpochRow::examplesPerSecond);
        c.put("steps", EpochRow::steps);
        c.put("median step s", EpochRow::medianStepSeconds);
        c.put("syncs", EpochRow::syncs);
        c.put("MB synced", m -> m.syncBytes() / 1e6);
        return java.util.Collections.unmodifiableMap(c);
    }

    /** The table of one run's history, every row carrying {@code run} in the run column. */
    public static Table of(String run, List<? extends EpochRow> history) {
        if (run == null || run.isBlank()) {
            throw new IllegalArgumentException("a run needs a non-empty name, e.g. \"2 devices\"");
        }
        if (history == null) {
            throw new IllegalArgumentException("history must not be null; pass the list that fit(...) returned");
        }
        Table t = Table.create(run, StringColumn.create(RUN), IntColumn.create(EPOCH));
        COLUMNS.keySet().forEach(name -> t.addColumns(DoubleColumn.create(name)));
        COLUMNS.keySet().forEach(name -> t.doubleColumn(name).setPrintFormatter(
                NumberColumnFormatter.fixedWithGrouping(DECIMALS.getOrDefault(name, 3))));
        for (EpochRow m : history) {
            t.stringColumn(RUN).append(run.strip());
            t.intColumn(EPOCH).append(m.epoch());
            COLUMNS.forEach((name, f) -> t.doubleColumn(name).append(f.applyAsDouble(m)));
        }
        return t;
    }

    /**
     * One run's metrics as text, one row an epoch (Tablesaw's rendering of {@link #of} without the run
     * column), with the skipped steps and the loss scale where an epoch used loss scaling.
     */
    public static String text(List<? extends EpochRow> history) {
        Table t = of("run", history).removeColumns(RUN).setName("metrics");
        if (history.stream().anyMatch(m -> !Double.isNaN(m.lossScale()))) {
            t.addColumns(DoubleColumn.create("skipped", history.stream().mapToDouble(EpochRow::skippedSteps)),
                    DoubleColumn.create("loss scale", history.stream().mapToDouble(EpochRow::lossScale)));
            t.doubleColumn("skipped").setPrintFormatter(NumberColumnFormatter.fixedWithGrouping(0));
            t.doubleColumn("loss scale").setPrintFormatter(NumberColumnFormatter.fixedWithGrouping(0));
        }
        return t.printAll() + System.lineSeparator();
    }

    /** The rows of several tables made by {@link #of}, one after another, in one table. */
    public static Table concat(Table... runs) {
        if (runs.length == 0) {
            throw new IllegalArgumentException("concat needs at least one table");
        }
        Table all = runs[0].copy().setName("metrics");
        for (int i = 1; i < runs.length; i++) {
            all.append(runs[i]);
        }
        return all;
    }

    /** The metric {@code column} of an {@link EpochRow}, failing with the known names when it is not one. */
    public static double value(String column, EpochRow m) {
        ToDoubleFunction<EpochRow> f = COLUMNS.get(column);
        if (f == null) {
            throw new IllegalArgumentException("unknown metric '" + column + "'; known: " + COLUMNS.keySet());
        }
        return f.applyAsDouble(m);
    }
}
