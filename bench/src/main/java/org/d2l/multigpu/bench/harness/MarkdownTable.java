package org.d2l.multigpu.bench.harness;

import java.math.RoundingMode;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;
import tech.tablesaw.columns.numbers.NumberColumnFormatter;

/**
 * A table of benchmark figures held in a Tablesaw {@link Table}, whose number columns print with a
 * fixed number of decimals (rounded half up, no grouping, "-" where a row has no value), written
 * as a Markdown (GitHub) table: Tablesaw writes CSV, fixed-width and HTML, not Markdown.
 */
public final class MarkdownTable {

    /** What a number column shows where a row has no value (null or NaN). */
    public static final String MISSING = "-";

    private final Table table = Table.create("bench");

    /** Appends a text column named {@code name}. */
    public MarkdownTable text(String name) {
        table.addColumns(StringColumn.create(name));
        return this;
    }

    /** Appends a number column named {@code name} shown with {@code decimals} decimals. */
    public MarkdownTable number(String name, int decimals) {
        DecimalFormat format = new DecimalFormat(decimals == 0 ? "0" : "0." + "0".repeat(decimals),
                DecimalFormatSymbols.getInstance(Locale.ROOT));
        format.setRoundingMode(RoundingMode.HALF_UP);
        DoubleColumn c = DoubleColumn.create(name);
        c.setPrintFormatter(new NumberColumnFormatter(format, MISSING));
        table.addColumns(c);
        return this;
    }

    /**
     * Appends a row, one cell per column in order: a String for a text column, a number (or null, or
     * NaN, for no value) for a number column.
     */
    public MarkdownTable row(Object... cells) {
        if (cells.length != table.columnCount()) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells for " + table.columnCount()
                    + " columns " + table.columnNames());
        }
        for (int i = 0; i < cells.length; i++) {
            Column<?> c = table.column(i);
            Object v = cells[i];
            if (c instanceof StringColumn && v instanceof String) {
                ((StringColumn) c).append((String) v);
            } else if (c instanceof DoubleColumn && (v == null || v instanceof Number)) {
                DoubleColumn d = (DoubleColumn) c;
                if (v == null) {
                    d.appendMissing();
                } else {
                    d.append(((Number) v).doubleValue());
                }
            } else {
                throw new IllegalArgumentException("column '" + c.name() + "' takes "
                        + (c instanceof StringColumn ? "text" : "a number or null") + ", got " + v);
            }
        }
        return this;
    }

    /** The figures as a Tablesaw table (for sorting, filtering or writing as CSV). */
    public Table table() {
        return table;
    }

    /** The table in Markdown: a header row, a delimiter row and one row per {@link #row}, each ending in a newline. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("|");
        table.columnNames().forEach(n -> sb.append(' ').append(escape(n)).append(" |"));
        sb.append("\n|").append("---|".repeat(table.columnCount())).append('\n');
        for (int r = 0; r < table.rowCount(); r++) {
            sb.append('|');
            for (int c = 0; c < table.columnCount(); c++) {
                sb.append(' ').append(escape(table.getString(r, c))).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A cell's text with its pipes escaped, so that it stays one cell. */
    private static String escape(String s) {
        return s.replace("|", "\\|");
    }
}
