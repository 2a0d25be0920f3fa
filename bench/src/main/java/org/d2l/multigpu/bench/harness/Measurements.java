package org.d2l.multigpu.bench.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.stat.descriptive.rank.Median;

/**
 * The figures of every run of a {@link Rounds} measurement, by configuration and round, and their
 * summaries: medians, maxima and medians of per-round ratios (a ratio between two configurations
 * measured in the same round, so that the machine's drift between rounds cancels).
 */
public final class Measurements {

    private final Map<String, List<double[]>> runs;

    /** The runs of each configuration in round order, the configurations in the order given. */
    public Measurements(Map<String, List<double[]>> runs) {
        this.runs = new LinkedHashMap<>();
        runs.forEach((c, v) -> this.runs.put(c, List.copyOf(v)));
    }

    /** The configurations, in the order they were given. */
    public List<String> configs() {
        return new ArrayList<>(runs.keySet());
    }

    /** The number of rounds (the fewest runs of any configuration). */
    public int rounds() {
        return runs.values().stream().mapToInt(List::size).min().orElse(0);
    }

    /** The figures of {@code config}'s run in round {@code round} (from 0). */
    public double[] run(String config, int round) {
        return runs(config).get(round);
    }

    /** Figure {@code figure} of every run of {@code config}, in round order. */
    public double[] column(String config, int figure) {
        return runs(config).stream().mapToDouble(a -> a[figure]).toArray();
    }

    /** The median of figure {@code figure} over the rounds of {@code config}. */
    public double median(String config, int figure) {
        return median(column(config, figure));
    }

    /** The largest figure {@code figure} of {@code config}'s runs. */
    public double max(String config, int figure) {
        return Arrays.stream(column(config, figure)).max().orElse(0);
    }

    /**
     * The median over the rounds of {@code config}'s figure divided by {@code base}'s figure of the
     * same round.
     */
    public double ratio(String config, String base, int figure) {
        double[] v = column(config, figure);
        double[] b = column(base, figure);
        double[] ratios = new double[Math.min(v.length, b.length)];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = v[i] / b[i];
        }
        return median(ratios);
    }

    /** The median of {@code values} (the mean of the two middle ones for an even count; NaN for none). */
    public static double median(double... values) {
        return new Median().evaluate(values);
    }

    private List<double[]> runs(String config) {
        List<double[]> v = runs.get(config);
        if (v == null) {
            throw new IllegalArgumentException("no runs of '" + config + "'; the configurations are " + runs.keySet());
        }
        return v;
    }
}
