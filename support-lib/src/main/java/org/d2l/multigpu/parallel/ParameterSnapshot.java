package org.d2l.multigpu.parallel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A copy of every parameter of a model (trained weights and running statistics such as BatchNorm's),
 * kept in memory, for example the best epoch's parameters in early stopping; close it to free it.
 */
public final class ParameterSnapshot implements AutoCloseable {

    private final NDManager manager;
    private final Map<String, NDArray> values;

    ParameterSnapshot(NDManager parent, Map<String, NDArray> source) {
        this.manager = parent.newSubManager();
        Map<String, NDArray> copies = new LinkedHashMap<>();
        for (Map.Entry<String, NDArray> e : source.entrySet()) {
            NDArray c = e.getValue().duplicate();
            c.attach(manager);
            copies.put(e.getKey(), c);
        }
        this.values = Collections.unmodifiableMap(copies);
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
