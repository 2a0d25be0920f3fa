package org.d2l.multigpu.plot;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.eval.MetricsTable;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.notebook.CellOutput;
import org.d2l.multigpu.notebook.KernelIo;
import org.d2l.multigpu.notebook.LiveDisplay;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * A figure of one metric per epoch that redraws itself in place while runs train (as d2l's Animator): shown
 * once, when its first run starts, and updated after every epoch of every run, so that a comparison of
 * several runs is one output (make the figure in the cell that trains them: a cell run again then draws a
 * new figure); where the kernel cannot update it, one line is printed per epoch and the figure is shown
 * when a run ends.
 */
public final class LiveFigure {

    private final String metric;
    private final Table table;
    private final Map<String, Integer> planned = new HashMap<>();
    private final LiveDisplay display = new LiveDisplay();
    private String title;
    private int width = 640;
    private int height = 400;

    private LiveFigure(String metric) {
        this.metric = metric;
        this.title = metric;
        this.table = Table.create(metric, StringColumn.create(MetricsTable.RUN), IntColumn.create(MetricsTable.EPOCH),
                DoubleColumn.create(metric));
    }

    /** A figure of the metric column {@code metric} of {@link MetricsTable} ("test acc", "train loss", ...). */
    public static LiveFigure of(String metric) {
        if (metric == null || !MetricsTable.COLUMNS.containsKey(metric)) {
            throw new IllegalArgumentException("unknown metric '" + metric + "'; known: " + MetricsTable.COLUMNS.keySet());
        }
        return new LiveFigure(metric);
    }

    /** Sets the title and returns this figure. */
    public LiveFigure title(String text) {
        this.title = text == null ? "" : text;
        return this;
    }

    /** Sets the size in pixels (as {@link LinePlot#size}: 640 x 400 unless set) and returns this figure. */
    public LiveFigure size(int w, int h) {
        LinePlot.of(table, MetricsTable.EPOCH, metric, MetricsTable.RUN).size(w, h); // refuses a size out of range
        this.width = w;
        this.height = h;
        return this;
    }

    /** A listener for {@code trainer.fit(..., fig.run("2 devices"))} that draws that run's epochs into this figure. */
    public EpochListener run(String name) {
        return new EpochListener() {
            @Override
            public void onFitStart(int numEpochs) {
                begin(name, numEpochs);
            }

            @Override
            public void onEpoch(EpochMetrics m) {
                add(name, m.epoch(), MetricsTable.value(metric, m));
            }
        };
    }

    /**
     * Starts run {@code run} of {@code numEpochs} epochs: the first run shows the figure; a later one redraws
     * that same output (or shows the figure, earlier runs included, where it could not be shown or updated).
     */
    public void begin(String run, int numEpochs) {
        if (run == null || run.isBlank() || numEpochs < 1) {
            throw new IllegalArgumentException("begin needs a run name and at least 1 epoch, got '" + run + "', " + numEpochs);
        }
        planned.put(run, numEpochs);
        CellOutput.remember(); // a run starts in this cell: the message of an interrupt goes here
        if (!display.redraw(() -> plot().mimeBundle())) {
            display.show(() -> plot().mimeBundle());
        }
    }

    /** Adds the value of epoch {@code epoch} (from 1) of run {@code run} and redraws, e.g. in a hand-written loop. */
    public void add(String run, int epoch, double value) {
        table.stringColumn(MetricsTable.RUN).append(run);
        table.intColumn(MetricsTable.EPOCH).append(epoch);
        table.doubleColumn(metric).append(value);
        if (display.redraw(() -> plot().mimeBundle())) {
            return;
        }
        KernelIo.print(String.format(Locale.ROOT, "%s, epoch %d: %s %.4f%n", run, epoch, metric, value));
        if (epoch == planned.getOrDefault(run, -1)) {
            plot().show();
        }
    }

    /** The data drawn so far: columns run, epoch and the metric. */
    public Table table() {
        return table.copy();
    }

    /** The plot of the data drawn so far. */
    public LinePlot plot() {
        return LinePlot.of(table.copy(), MetricsTable.EPOCH, metric, MetricsTable.RUN).title(title).size(width, height);
    }
}
