package org.d2l.multigpu.lesson;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Two runs' training loss per epoch compared at equal epochs and over the same steps, where the second
 * run's batch is twice the first's: its epochs 2e - 1 and 2e take as many steps as the first run's epoch e.
 */
public final class LossCurves {

    private LossCurves() {}

    /** The epochs after the first whose loss lies below the epoch before. */
    public static int falls(double[] loss) {
        return (int) IntStream.range(1, loss.length).filter(e -> loss[e] < loss[e - 1]).count();
    }

    /** The epochs in which {@code two}'s loss lies above {@code one}'s, over the epochs both have. */
    public static int higherAtEqualEpochs(double[] one, double[] two) {
        return (int) IntStream.range(0, Math.min(one.length, two.length)).filter(e -> two[e] > one[e]).count();
    }

    /** The mean of {@code two}'s epochs 2e - 1 and 2e, for e = 1, 2, ...: the same steps as epoch e at half the batch. */
    public static double[] pairMeans(double[] two) {
        return IntStream.range(0, two.length / 2).mapToDouble(e -> (two[2 * e] + two[2 * e + 1]) / 2).toArray();
    }

    /** The pairs e in which {@code two}'s pair mean lies below {@code one}'s epoch e. */
    public static int lowerOverSameSteps(double[] one, double[] two) {
        double[] pairs = pairMeans(two);
        return (int) IntStream.range(0, Math.min(pairs.length, one.length)).filter(e -> pairs[e] < one[e]).count();
    }

    /** One line: the first run's loss in epoch e and the second run's pair mean, pair by pair. */
    public static String overSameSteps(double[] one, double[] two) {
        double[] pairs = pairMeans(two);
        int n = Math.min(pairs.length, one.length);
        return "Training loss over the same steps, pair 1 to " + n + ": 1 device " + format(Arrays.copyOf(one, n))
                + ", 2 devices " + format(pairs);
    }

    private static String format(double[] values) {
        return Arrays.stream(values).mapToObj(v -> String.format(Locale.ROOT, "%.4f", v))
                .collect(Collectors.joining(", ", "[", "]"));
    }
}
