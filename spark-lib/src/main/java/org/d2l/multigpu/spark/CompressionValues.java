package org.d2l.multigpu.spark;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.d2l.multigpu.compression.CompressionState;

/**
 * What the ranks' compressors remember (residuals, thresholds, PowerSGD's Q), by name, as plain values
 * that Spark ships between the driver and the tasks: the driver holds every rank's, each rank loads its
 * own entries and the shared ones ({@link #forReplica}) and reports after each epoch the entries that
 * changed, which the driver lays over what it holds, so that a stage run again starts every rank where
 * the last complete epoch left it.
 */
public record CompressionValues(Map<String, float[]> arrays, Map<String, Double> numbers) implements Serializable {

    /** Nothing remembered yet (a run's start). */
    public static CompressionValues empty() {
        return new CompressionValues(new TreeMap<>(), new TreeMap<>());
    }

    /** A copy of what {@code state} holds now. */
    public static CompressionValues of(CompressionState state) {
        Map<String, float[]> arrays = new TreeMap<>();
        state.arrays().forEach((name, values) -> arrays.put(name, values.clone()));
        return new CompressionValues(arrays, new TreeMap<>(state.numbers()));
    }

    /** The entries of replica {@code replica}'s own and the ones every replica shares ({@link CompressionState#replicaOf}). */
    public CompressionValues forReplica(int replica) {
        Map<String, float[]> a = new TreeMap<>();
        arrays.forEach((name, values) -> {
            int r = CompressionState.replicaOf(name);
            if (r < 0 || r == replica) {
                a.put(name, values);
            }
        });
        Map<String, Double> n = new TreeMap<>();
        numbers.forEach((name, value) -> {
            int r = CompressionState.replicaOf(name);
            if (r < 0 || r == replica) {
                n.put(name, value);
            }
        });
        return new CompressionValues(a, n);
    }

    /** Puts these values into {@code state}, replacing what it held. */
    public void loadInto(CompressionState state) {
        state.clear();
        arrays.forEach((name, values) -> state.put(name, values.clone()));
        numbers.forEach(state::put);
    }

    /** The entries of this that {@code before} does not hold with the same value. */
    public CompressionValues changedSince(CompressionValues before) {
        Map<String, float[]> a = new TreeMap<>();
        arrays.forEach((name, values) -> {
            if (!Arrays.equals(values, before.arrays.get(name))) {
                a.put(name, values);
            }
        });
        Map<String, Double> n = new TreeMap<>();
        numbers.forEach((name, value) -> {
            if (!Objects.equals(value, before.numbers.get(name))) {
                n.put(name, value);
            }
        });
        return new CompressionValues(a, n);
    }

    /** These values with {@code changes} laid over them (a rank's report of an epoch). */
    public CompressionValues with(CompressionValues changes) {
        Map<String, float[]> a = new TreeMap<>(arrays);
        a.putAll(changes.arrays);
        Map<String, Double> n = new TreeMap<>(numbers);
        n.putAll(changes.numbers);
        return new CompressionValues(a, n);
    }
}
