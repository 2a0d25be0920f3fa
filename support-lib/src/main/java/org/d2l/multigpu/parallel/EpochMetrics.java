package org.d2l.multigpu.parallel;

import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.eval.EpochRow;

/**
 * What one epoch of training measured: mean training loss and accuracy, test accuracy (NaN when
 * there is no test set), training seconds, training examples per second, how often the replicas
 * were synchronised (gradient allreduces or parameter averagings) with the bytes that moved for it
 * (see {@link ReplicaSync}: reduce and broadcast, 0 for a single replica), in FLOAT16 training the
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

    /** Metrics without a median step time. */
    public EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
            double seconds, double examplesPerSecond, long syncs, long syncBytes, long skippedSteps,
            double lossScale, long steps, List<Long> optimizerStateBytes) {
        this(epoch, trainLoss, trainAccuracy, testAccuracy, seconds, examplesPerSecond, syncs, syncBytes,
                skippedSteps, lossScale, steps, optimizerStateBytes, Double.NaN);
    }

    /** Metrics without optimizer state bytes. */
    public EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
            double seconds, double examplesPerSecond, long syncs, long syncBytes, long skippedSteps,
            double lossScale, long steps) {
        this(epoch, trainLoss, trainAccuracy, testAccuracy, seconds, examplesPerSecond, syncs, syncBytes,
                skippedSteps, lossScale, steps, List.of());
    }

    /** Metrics of an epoch that did not count its steps. */
    public EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
            double seconds, double examplesPerSecond, long syncs, long syncBytes, long skippedSteps,
            double lossScale) {
        this(epoch, trainLoss, trainAccuracy, testAccuracy, seconds, examplesPerSecond, syncs, syncBytes,
                skippedSteps, lossScale, 0);
    }

    /** Metrics of an epoch without loss scaling (FLOAT32 training). */
    public EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
            double seconds, double examplesPerSecond, long syncs, long syncBytes) {
        this(epoch, trainLoss, trainAccuracy, testAccuracy, seconds, examplesPerSecond, syncs, syncBytes, 0,
                Double.NaN, 0);
    }

    /** Metrics without synchronisation counts (for runs outside the trainer). */
    public EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
            double seconds, double examplesPerSecond) {
        this(epoch, trainLoss, trainAccuracy, testAccuracy, seconds, examplesPerSecond, 0, 0);
    }

    /** The most optimizer state any one replica held at the end of the epoch, in bytes (0 when not reported). */
    public long largestOptimizerStateBytes() {
        return optimizerStateBytes.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /**
     * A fixed-width text table of {@code history}, one row an epoch (with skipped steps and loss scale
     * when an epoch used loss scaling).
     */
    public static String table(List<EpochMetrics> history) {
        boolean scaled = history.stream().anyMatch(m -> !Double.isNaN(m.lossScale));
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%5s %10s %9s %9s %9s %10s %6s %7s %10s", "epoch", "train loss", "train acc", "test acc",
                "seconds", "examples/s", "steps", "syncs", "MB synced"));
        sb.append(scaled ? String.format(Locale.ROOT, " %7s %10s%n", "skipped", "loss scale") : String.format("%n"));
        for (EpochMetrics m : history) {
            sb.append(String.format(Locale.ROOT, "%5d %10.4f %9.3f %9.3f %9.1f %10.1f %6d %7d %10.1f", m.epoch,
                    m.trainLoss, m.trainAccuracy, m.testAccuracy, m.seconds, m.examplesPerSecond, m.steps, m.syncs,
                    m.syncBytes / 1e6));
            sb.append(scaled ? String.format(Locale.ROOT, " %7d %10.0f%n", m.skippedSteps, m.lossScale)
                    : String.format("%n"));
        }
        return sb.toString();
    }

    /** One column of {@code history} as an array, for plots ({@code EpochMetrics::testAccuracy} and so on). */
    public static double[] column(List<EpochMetrics> history, java.util.function.ToDoubleFunction<EpochMetrics> f) {
        return history.stream().mapToDouble(f).toArray();
    }
}
