package org.d2l.multigpu.plot;

import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** Points of named series, added one at a time, as the table a {@link LinePlot} draws: x, y and the series of each. */
public final class Points {

    private final Table table;

    private Points(String x, String y, String series) {
        if (x.equals(y) || x.equals(series) || y.equals(series)) {
            throw new IllegalArgumentException("The columns need three different names, got '" + x + "', '" + y
                    + "' and '" + series + "'.");
        }
        table = Table.create(y + " by " + x, DoubleColumn.create(x), DoubleColumn.create(y), StringColumn.create(series));
    }

    /** No points yet, in columns named {@code x}, {@code y} and {@code series}. */
    public static Points of(String x, String y, String series) {
        return new Points(x, y, series);
    }

    /** Adds the point ({@code x}, {@code y}) to the series {@code series}. */
    public Points add(String series, double x, double y) {
        table.doubleColumn(0).append(x);
        table.doubleColumn(1).append(y);
        table.stringColumn(2).append(series);
        return this;
    }

    /** The points as a table, in the order they were added. */
    public Table table() {
        return table;
    }

    /** A line plot of y against x, one line per series. */
    public LinePlot plot() {
        return LinePlot.of(table, table.column(0).name(), table.column(1).name(), table.column(2).name());
    }
}
