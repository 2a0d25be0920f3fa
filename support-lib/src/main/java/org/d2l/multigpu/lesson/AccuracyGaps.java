package org.d2l.multigpu.lesson;

import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleBiFunction;
import org.d2l.multigpu.loop.EpochMetrics;

/**
 * How far apart training runs lie in test accuracy: the mean over their epochs of the gap between two
 * runs, and the smallest such gap among several runs (the spread that seeds give by chance).
 */
public final class AccuracyGaps {

    private AccuracyGaps() {}

    /** The mean over the epochs of the gap in test accuracy between the runs {@code a} and {@code b} of {@code runs}. */
    public static double mean(Map<String, List<EpochMetrics>> runs, String a, String b) {
        return mean(a, testAcc(runs, a), b, testAcc(runs, b));
    }

    /** The smallest {@link #mean} gap between any two of the runs {@code names} of {@code runs}. */
    public static double smallest(Map<String, List<EpochMetrics>> runs, String... names) {
        return smallest(names, (a, b) -> mean(runs, a, b));
    }

    /** The mean over the epochs of |x - y|, the test accuracies of runs {@code a} and {@code b}, epoch by epoch. */
    static double mean(String a, List<Double> x, String b, List<Double> y) {
        if (x.size() != y.size() || x.isEmpty()) {
            throw new IllegalArgumentException("The runs '" + a + "' and '" + b + "' have " + x.size() + " and "
                    + y.size() + " epochs: compare runs of as many epochs, one at least.");
        }
        double sum = 0;
        for (int e = 0; e < x.size(); e++) {
            sum += Math.abs(x.get(e) - y.get(e));
        }
        return sum / x.size();
    }

    /** The smallest {@code gap} between any two of {@code names}. */
    static double smallest(String[] names, ToDoubleBiFunction<String, String> gap) {
        if (names.length < 2) {
            throw new IllegalArgumentException("A gap needs two runs at least, got " + names.length + ".");
        }
        double smallest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < names.length; i++) {
            for (int j = i + 1; j < names.length; j++) {
                smallest = Math.min(smallest, gap.applyAsDouble(names[i], names[j]));
            }
        }
        return smallest;
    }

    private static List<Double> testAcc(Map<String, List<EpochMetrics>> runs, String name) {
        List<EpochMetrics> h = runs.get(name);
        if (h == null) {
            throw new IllegalStateException("The run '" + name + "' did not finish, so there is nothing to compare: "
                    + "see the error of its training cell above, and run that cell again." + (runs.isEmpty() ? ""
                    : " Finished runs: " + runs.keySet() + "."));
        }
        return h.stream().map(EpochMetrics::testAccuracy).toList();
    }
}
