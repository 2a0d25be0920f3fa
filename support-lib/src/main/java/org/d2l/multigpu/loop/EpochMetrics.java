package org.d2l.multigpu.loop;

import java.util.List;
import org.d2l.multigpu.eval.EpochRow;
import org.d2l.multigpu.eval.MetricsTable;

/**
 * What one epoch of training measured: mean training loss and accuracy, test accuracy (NaN when
 * there is no test set), training seconds, training examples per second, how often the replicas
 * were synchronised (gradient allreduces or parameter averagings) with the bytes that moved for it
 * (a reduce and a broadcast, 0 for a single replica), in FLOAT16 training the
 * steps skipped for overflowing gradients and the loss scale at the end of the epoch (NaN when the
 * epoch used no loss scaling), the global steps (or parameter-averaging rounds) the epoch took,
 * skipped ones included (0 when not counted), the bytes of optimizer state each replica held at
 * the end of the epoch (index i for replica i; empty for runs outside the trainer), and the median
 * seconds of one step (NaN when the steps were not timed one by one).
 */
public record EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
        double seconds, double examplesPerSecond, long syncs, long syncBytes, long skippedSteps,
        double lossScale, long steps, List<Long> optimizerStateBytes, double medianStepSeconds)
        implements EpochRow {

    /** Keeps an unmodifiable copy of the state bytes (none when null). */
    public EpochMetrics {
        optimizerStateBytes = optimizerStateBytes == null ? List.of() : List.copyOf(optimizerStateBytes);
    }

    /** The metrics of an epoch of a run outside the trainers (a hand-written loop): no steps, syncs or loss scale counted. */
    public static EpochMetrics of(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
            double seconds, double examplesPerSecond) {
        return new EpochMetrics(epoch, trainLoss, trainAccuracy, testAccuracy, seconds, examplesPerSecond, 0, 0, 0,
                Double.NaN, 0, List.of(), Double.NaN);
    }

    /** The most optimizer state any one replica held at the end of the epoch, in bytes (0 when not reported). */
    public long largestOptimizerStateBytes() {
        return optimizerStateBytes.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** The metrics of {@code history} as a text table, one row an epoch ({@link MetricsTable#text}). */
    public static String table(List<EpochMetrics> history) {
        return MetricsTable.text(history);
    }

    /** One column of {@code history} as an array, for plots ({@code EpochMetrics::testAccuracy} and so on). */
    public static double[] column(List<EpochMetrics> history, java.util.function.ToDoubleFunction<EpochMetrics> f) {
        return history.stream().mapToDouble(f).toArray();
    }
}
