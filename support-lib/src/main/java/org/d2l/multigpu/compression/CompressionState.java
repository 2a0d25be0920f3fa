package org.d2l.multigpu.compression;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link Compressor} remembers between steps, by name (the parameter's id, an {@code @}, what it is):
 * arrays (each replica's residual of every parameter, PowerSGD's Q) and numbers (thresholds, steps counted),
 * all of which a checkpoint carries, so that a resumed run compresses as the unbroken run does.
 */
public final class CompressionState {

    private final Map<String, float[]> arrays = new TreeMap<>();
    private final Map<String, Double> numbers = new TreeMap<>();

    /** The array named {@code name}, or null when there is none yet. */
    public float[] array(String name) {
        return arrays.get(name);
    }

    /** Keeps {@code values} under {@code name} (the array itself, not a copy). */
    public void put(String name, float[] values) {
        arrays.put(name, values);
    }

    /** The number named {@code name}, or {@code otherwise} when there is none yet. */
    public double number(String name, double otherwise) {
        return numbers.getOrDefault(name, otherwise);
    }

    /** Keeps {@code value} under {@code name}. */
    public void put(String name, double value) {
        numbers.put(name, value);
    }

    /** Every array, by name, in name order (read-only). */
    public Map<String, float[]> arrays() {
        return Collections.unmodifiableMap(arrays);
    }

    /** Every number, by name, in name order (read-only). */
    public Map<String, Double> numbers() {
        return Collections.unmodifiableMap(numbers);
    }

    /** Forgets everything (a run that starts afresh). */
    public void clear() {
        arrays.clear();
        numbers.clear();
    }

    /** The name of {@code what} kept for parameter {@code key} (and replica {@code replica}, or -1 for one shared by all). */
    static String name(String key, String what, int replica) {
        return key + "@" + what + (replica < 0 ? "" : String.valueOf(replica));
    }
}
