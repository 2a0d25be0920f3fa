package org.d2l.multigpu.parallel;

import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Records the loss of every step in a run's first epochs (an epoch's mean loss hides single steps that
 * overshoot), recovered from the running mean that {@link EpochListener#onStep} reports.
 */
public final class StepLosses implements EpochListener {

    private final String run;
    private final int epochs;
    private final IntColumn step = IntColumn.create("step");
    private final DoubleColumn loss = DoubleColumn.create("step loss");
    private long seen;
    private double sum;

    private StepLosses(String run, int epochs) {
        this.run = run;
        this.epochs = epochs;
    }

    /** A recorder of the steps of the first {@code epochs} epochs, naming them {@code run} in its table. */
    public static StepLosses of(String run, int epochs) {
        if (run == null || run.isBlank() || epochs < 1) {
            throw new IllegalArgumentException("StepLosses needs a run name and at least 1 epoch, got \"" + run
                    + "\" and " + epochs);
        }
        return new StepLosses(run, epochs);
    }

    @Override
    public void onEpochStart(int epoch, long examples) {
        seen = 0;
        sum = 0;
    }

    @Override
    public void onStep(int epoch, long examplesSeen, double meanLoss) {
        if (epoch > epochs || examplesSeen <= seen) {
            return;
        }
        double total = meanLoss * examplesSeen;
        loss.append((total - sum) / (examplesSeen - seen));
        step.append(step.size() + 1);
        seen = examplesSeen;
        sum = total;
    }

    @Override
    public void onEpoch(EpochMetrics metrics) {}

    /** The largest step loss recorded (NaN before any step). */
    public double max() {
        return loss.isEmpty() ? Double.NaN : loss.max();
    }

    /** The recorded steps as a table with columns run, step and step loss. */
    public Table table() {
        StringColumn runs = StringColumn.create("run");
        for (int i = 0; i < step.size(); i++) {
            runs.append(run);
        }
        return Table.create(run, runs, step.copy(), loss.copy());
    }
}
