package org.d2l.multigpu.precision;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * The bytes a data-parallel trainer's arrays take, measured from the arrays and summed over its
 * replicas: the parameters the replicas compute with and their gradients, the separate float32
 * masters and their gradients (FLOAT16 with master weights only), the optimizer's state (momentum,
 * Adam's moments), and the bytes its rule synchronised in the last step.
 */
public record ParameterBytes(int replicas, long parameters, long gradients, long masters, long masterGradients,
        long optimizerState, long syncedPerStep) {

    /** The rows of {@link #table}: a label and the field it shows. */
    private static final Map<String, ToLongFunction<ParameterBytes>> ROWS = rows();

    private static Map<String, ToLongFunction<ParameterBytes>> rows() {
        Map<String, ToLongFunction<ParameterBytes>> rows = new java.util.LinkedHashMap<>();
        rows.put("parameters computed with", ParameterBytes::parameters);
        rows.put("their gradients", ParameterBytes::gradients);
        rows.put("float32 master weights", ParameterBytes::masters);
        rows.put("master gradients", ParameterBytes::masterGradients);
        rows.put("optimizer state", ParameterBytes::optimizerState);
        rows.put("total held", ParameterBytes::total);
        rows.put("synchronised per step", ParameterBytes::syncedPerStep);
        return rows;
    }

    /**
     * Measures the arrays of {@code compute} (what the replicas compute with) and of {@code masters}
     * (what the rule updates; not counted again when they are the same stores) for the block's
     * parameters {@code params}, with the optimizer's state and the last step's synchronised bytes as given.
     */
    public static ParameterBytes of(List<ReplicaStore> compute, List<ReplicaStore> masters, List<Parameter> params,
            long optimizerState, long syncedPerStep) {
        long[] c = measure(compute, params);
        long[] m = masters.equals(compute) ? new long[2] : measure(masters, params);
        return new ParameterBytes(compute.size(), c[0], c[1], m[0], m[1], optimizerState, syncedPerStep);
    }

    /** Bytes of the values and of the gradients of every parameter in {@code stores}. */
    private static long[] measure(List<ReplicaStore> stores, List<Parameter> params) {
        long values = 0;
        long grads = 0;
        for (ReplicaStore s : stores) {
            for (Parameter p : params) {
                NDArray a = s.get(p.getId());
                values += bytes(a);
                if (p.requiresGradient()) {
                    try (NDArray g = a.getGradient()) {
                        grads += bytes(g);
                    }
                }
            }
        }
        return new long[] {values, grads};
    }

    /** The bytes of one array's elements. */
    public static long bytes(NDArray a) {
        return a.size() * a.getDataType().getNumOfBytes();
    }

    /** Everything held: parameters, gradients, masters, their gradients and the optimizer's state. */
    public long total() {
        return parameters + gradients + masters + masterGradients + optimizerState;
    }

    /** A table of several runs side by side, one column per run (its name), in kB; first line says how many replicas. */
    public static String table(Map<String, ParameterBytes> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("table needs at least one run, e.g. Map.of(\"FLOAT32\", t.parameterBytes())");
        }
        int width = Math.max(12, runs.keySet().stream().mapToInt(String::length).max().orElse(0) + 1);
        int replicas = runs.values().iterator().next().replicas();
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-26s", "kB, " + replicas + " replicas"));
        runs.keySet().forEach(name -> sb.append(String.format(Locale.ROOT, "%" + width + "s", name)));
        sb.append(System.lineSeparator());
        ROWS.forEach((label, f) -> {
            sb.append(String.format(Locale.ROOT, "%-26s", label));
            runs.values().forEach(b -> sb.append(String.format(Locale.ROOT, "%" + width + ".1f", f.applyAsLong(b) / 1e3)));
            sb.append(System.lineSeparator());
        });
        return sb.toString();
    }
}
