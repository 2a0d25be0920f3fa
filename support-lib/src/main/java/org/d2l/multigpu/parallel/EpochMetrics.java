package org.d2l.multigpu.parallel;

import java.util.List;
import java.util.Locale;

/**
 * What one epoch of training measured: mean training loss and accuracy, test accuracy (NaN when
 * there is no test set), training seconds and training examples per second.
 */
public record EpochMetrics(int epoch, double trainLoss, double trainAccuracy, double testAccuracy,
        double seconds, double examplesPerSecond) {

    /** A fixed-width text table of {@code history}, one row an epoch. */
    public static String table(List<EpochMetrics> history) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%5s %10s %9s %9s %9s %10s%n", "epoch", "train loss", "train acc", "test acc", "seconds", "examples/s"));
        for (EpochMetrics m : history) {
            sb.append(String.format(Locale.ROOT, "%5d %10.4f %9.3f %9.3f %9.1f %10.1f%n", m.epoch, m.trainLoss,
                    m.trainAccuracy, m.testAccuracy, m.seconds, m.examplesPerSecond));
        }
        return sb.toString();
    }

    /** One column of {@code history} as an array, for plots ({@code EpochMetrics::testAccuracy} and so on). */
    public static double[] column(List<EpochMetrics> history, java.util.function.ToDoubleFunction<EpochMetrics> f) {
        return history.stream().mapToDouble(f).toArray();
    }
}
