package org.d2l.multigpu.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs every configuration once per round, rotating their order by one every round so that a machine
 * that slows down or speeds up affects them alike, and keeps each run's figures in a {@link Measurements}.
 */
public final class Rounds {

    /** One measurement of a configuration (in a child process, usually): its figures. */
    @FunctionalInterface
    public interface Measurement {
        /** Measures {@code config} once and returns its figures. */
        double[] run(String config) throws Exception;
    }

    /** Told of every run as it ends (the benchmarks print a progress line to stderr). */
    @FunctionalInterface
    public interface Progress {
        /** Called after {@code config}'s run of {@code round} (counted from 1) with its figures. */
        void report(int round, String config, double[] figures);
    }

    private Rounds() {}

    /** Runs {@code rounds} rounds of {@code configs} with {@code measurement}, reporting each run to {@code progress}. */
    public static Measurements run(List<String> configs, int rounds, Measurement measurement, Progress progress)
            throws Exception {
        if (configs.isEmpty() || rounds < 1) {
            throw new IllegalArgumentException("need at least one configuration and one round, got " + configs
                    + " and " + rounds + " round(s)");
        }
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        configs.forEach(c -> runs.put(c, new ArrayList<>()));
        for (int r = 0; r < rounds; r++) {
            for (String c : order(configs, r)) {
                double[] figures = measurement.run(c);
                runs.get(c).add(figures);
                progress.report(r + 1, c, figures);
            }
        }
        return new Measurements(runs);
    }

    /** The order of {@code configs} in round {@code round} (from 0): the list rotated left by {@code round}. */
    public static List<String> order(List<String> configs, int round) {
        List<String> order = new ArrayList<>();
        for (int j = 0; j < configs.size(); j++) {
            order.add(configs.get((j + round) % configs.size()));
        }
        return order;
    }
}
