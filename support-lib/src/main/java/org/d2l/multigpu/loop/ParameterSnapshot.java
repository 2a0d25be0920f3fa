package org.d2l.multigpu.loop;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.d2l.multigpu.devices.OnDevice;

/**
 * A copy of every parameter of a model (trained weights and running statistics such as BatchNorm's),
 * kept in memory, for example the best epoch's parameters in early stopping; close it to free it.
 */
public final class ParameterSnapshot implements AutoCloseable {

    private final NDManager manager;
    private final Map<String, NDArray> values;

    private ParameterSnapshot(NDManager parent, Map<String, NDArray> source) {
        this.manager = parent.newSubManager();
        Map<String, NDArray> copies = new LinkedHashMap<>();
        for (Map.Entry<String, NDArray> e : source.entrySet()) {
            NDArray c = e.getValue().duplicate();
            c.attach(manager);
            copies.put(e.getKey(), c);
        }
        this.values = Collections.unmodifiableMap(copies);
    }

    /** A copy of {@code source}'s arrays under their parameter ids, held by a sub-manager of {@code parent}. */
    public static ParameterSnapshot copyOf(Map<String, NDArray> source, NDManager parent) {
        return new ParameterSnapshot(parent, source);
    }

    /** A copy of {@code net}'s own parameters and running statistics, held by a sub-manager of {@code manager}. */
    public static ParameterSnapshot of(Block net, NDManager manager) {
        Map<String, NDArray> current = new LinkedHashMap<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            current.put(p.getValue().getId(), p.getValue().getArray());
        }
        return new ParameterSnapshot(manager, current);
    }

    /** Writes the copies into {@code net}'s own parameter arrays, bit for bit. */
    public void copyInto(Block net) {
        for (Pair<String, Parameter> p : net.getParameters()) {
            NDArray saved = values.get(p.getValue().getId());
            if (saved == null) {
                throw new IllegalArgumentException("The snapshot has no parameter " + p.getValue().getId()
                        + ": it was taken from another model.");
            }
            OnDevice.copyInto(saved, p.getValue().getArray());
        }
    }

    /** The copied arrays by parameter id. */
    public Map<String, NDArray> values() {
        return values;
    }

    /** Frees the copies. */
    @Override
    public void close() {
        manager.close();
    }
}
