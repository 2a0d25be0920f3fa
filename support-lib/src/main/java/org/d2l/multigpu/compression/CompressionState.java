package org.d2l.multigpu.compression;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.ParameterFile;

/**
 * What a {@link Compressor} remembers between steps, by name (the key of the array, a parameter's id in process
 * and its name on Spark, then an {@code @}, what it is, and for one replica's own its index):
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

    /**
     * Writes everything into {@code out} ({@code compression.ndlist}, {@code compression.properties}), each
     * name's key renamed by {@code rename} (a parameter's id to its name, which a new block shares).
     */
    public void save(Checkpoint out, UnaryOperator<String> rename) {
        try (NDManager tmp = NDManager.newBaseManager(Device.cpu())) {
            Map<String, NDArray> a = new LinkedHashMap<>();
            arrays.forEach((name, values) -> a.put(renamed(name, rename), tmp.create(values.clone())));
            out.put("compression.ndlist", ParameterFile.encode(a));
        }
        Map<String, String> n = new LinkedHashMap<>();
        numbers.forEach((name, value) -> n.put(renamed(name, rename), Double.toHexString(value)));
        out.putText("compression.properties", n);
    }

    /** Replaces everything with what {@link #save} wrote into {@code in}, each name's key renamed by {@code rename}. */
    public void load(Checkpoint in, UnaryOperator<String> rename) {
        clear();
        try (NDManager tmp = NDManager.newBaseManager(Device.cpu())) {
            ParameterFile.decode(in.get("compression.ndlist"), tmp)
                    .forEach((name, value) -> put(renamed(name, rename), value.toFloatArray()));
        }
        in.text("compression.properties").forEach((name, value) -> put(renamed(name, rename), Double.parseDouble(value)));
    }

    /**
     * The replica whose own entry {@code name} is (a residual, a threshold), or -1 for one that every replica
     * shares (PowerSGD's Q and step count).
     */
    public static int replicaOf(String name) {
        int end = name.length();
        int start = end;
        while (start > name.lastIndexOf('@') + 1 && Character.isDigit(name.charAt(start - 1))) {
            start--;
        }
        return start == end ? -1 : Integer.parseInt(name.substring(start, end));
    }

    /** {@code name} with its key (before the {@code @}) renamed by {@code rename}. */
    private static String renamed(String name, UnaryOperator<String> rename) {
        int at = name.indexOf('@');
        return rename.apply(name.substring(0, at)) + name.substring(at);
    }

    /** The name of {@code what} kept for parameter {@code key} (and replica {@code replica}, or -1 for one shared by all). */
    static String name(String key, String what, int replica) {
        return key + "@" + what + (replica < 0 ? "" : String.valueOf(replica));
    }
}
