package org.d2l.multigpu.optimizer;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.optimizer.Sgd;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.precision.ParameterBytes;
import org.d2l.multigpu.runtime.DjlFields;

/**
 * The per-parameter state of a DJL optimizer (SGD's momentum, NAG's, Adam's two moments): DJL has
 * no API for it, so it is found by reflection as the optimizer's fields of type
 * {@code Map<String, Map<Device, NDArray>>}, the form every DJL 0.35 and 0.36 optimizer keeps its state in.
 */
public final class OptimizerState {

    private final List<Map<String, Map<Device, NDArray>>> maps;

    private OptimizerState(List<Map<String, Map<Device, NDArray>>> maps) {
        this.maps = maps;
    }

    /**
     * The state maps of {@code optimizer} (none for plain SGD without momentum); fails with a clear
     * error when an optimizer that keeps state shows none in that form, rather than averaging nothing.
     */
    @SuppressWarnings("unchecked")
    public static OptimizerState of(Optimizer optimizer) {
        List<Map<String, Map<Device, NDArray>>> maps = new ArrayList<>();
        for (Object value : DjlFields.valuesOfType(optimizer, OptimizerState::isStateMap, "averaging or carrying "
                + "the optimizer's state (turn it off with optAverageUpdaters(false))")) {
            maps.add((Map<String, Map<Device, NDArray>>) value);
        }
        if (maps.isEmpty() && keepsState(optimizer)) {
            throw new IllegalStateException("Optimizer " + optimizer.getClass().getName() + " keeps per-parameter "
                    + "state (momentum or moments), but none of its fields holds it as Map<String, Map<Device, "
                    + "NDArray>>, the form of DJL's own optimizers: its state cannot be averaged or carried. Use "
                    + "optAverageUpdaters(false) to keep each worker's state apart, or one of DJL's optimizers.");
        }
        return new OptimizerState(maps);
    }

    /**
     * Makes a fresh {@code optimizer} count its updates from {@code updatesTaken} on, as if it had
     * taken them (DJL's {@code beginNumUpdate}): an optimizer rebuilt for each round (on Spark)
     * continues Adam's bias correction and learning-rate schedules instead of starting them again.
     */
    public static void startCountingAt(Optimizer optimizer, int updatesTaken) {
        DjlFields.set(Optimizer.class, "beginNumUpdate", optimizer, updatesTaken,
                "continuing the update count of an optimizer rebuilt for each round");
    }

    /**
     * Whether {@code optimizer} keeps state between updates: every optimizer but plain SGD (SGD
     * without momentum, read from DJL's {@code momentum} field; when that cannot be read, assumed).
     */
    public static boolean keepsState(Optimizer optimizer) {
        if (!(optimizer instanceof Sgd)) {
            return true;
        }
        try {
            return DjlFields.<Float>get(Sgd.class, "momentum", optimizer, "telling plain SGD apart") != 0f;
        } catch (IllegalStateException ex) {
            return true;
        }
    }

    private static boolean isStateMap(Type t) {
        if (!(t instanceof ParameterizedType pt) || pt.getRawType() != Map.class) {
            return false;
        }
        Type[] args = pt.getActualTypeArguments();
        return args[0] == String.class && args[1] instanceof ParameterizedType inner
                && inner.getRawType() == Map.class
                && inner.getActualTypeArguments()[0] == Device.class
                && inner.getActualTypeArguments()[1] == NDArray.class;
    }

    /** The bytes of every state array the optimizer holds now, over all kinds, parameters and devices. */
    public long bytes() {
        long bytes = 0;
        for (Map<String, Map<Device, NDArray>> kind : maps) {
            for (Map<Device, NDArray> perDevice : kind.values()) {
                for (NDArray a : perDevice.values()) {
                    bytes += ParameterBytes.bytes(a);
                }
            }
        }
        return bytes;
    }

    /** The number of kinds of state the optimizer keeps per parameter (0 for plain SGD, 1 for momentum, 2 for Adam). */
    public int kinds() {
        return maps.size();
    }

    /** The state array of kind {@code kind} kept under {@code key} for {@code device}, or null if there is none yet. */
    public NDArray get(int kind, String key, Device device) {
        Map<Device, NDArray> perDevice = maps.get(kind).get(key);
        return perDevice == null ? null : perDevice.get(device);
    }

    /** The bytes of every kind of state kept under {@code key} for {@code device} (0 when there is none yet). */
    public long bytes(String key, Device device) {
        long bytes = 0;
        for (int kind = 0; kind < maps.size(); kind++) {
            NDArray s = get(kind, key, device);
            if (s != null) {
                bytes += ParameterBytes.bytes(s);
            }
        }
        return bytes;
    }

    /**
     * Sets the state of kind {@code kind} under {@code key} for {@code device} to the values of
     * {@code value}: in place when the state exists, else as a new detached copy, as DJL keeps it.
     */
    public void set(int kind, String key, Device device, NDArray value) {
        NDArray current = get(kind, key, device);
        if (current != null) {
            OnDevice.copyInto(value, current);
            return;
        }
        NDArray copy = OnDevice.copy(value, device, value.getManager());
        copy.detach();
        maps.get(kind).computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(device, copy);
    }

    /** Visits one state array: its kind (index), key, device and values. */
    @FunctionalInterface
    public interface Visitor {
        /** Called for each state array. */
        void visit(int kind, String key, Device device, NDArray value);
    }

    /** Calls {@code visitor} for every state array the optimizer holds now, kind by kind. */
    public void forEach(Visitor visitor) {
        for (int kind = 0; kind < maps.size(); kind++) {
            for (Map.Entry<String, Map<Device, NDArray>> e : maps.get(kind).entrySet()) {
                for (Map.Entry<Device, NDArray> d : e.getValue().entrySet()) {
                    visitor.visit(kind, e.getKey(), d.getKey(), d.getValue());
                }
            }
        }
    }

    /** Drops every state array (freeing it), as if the optimizer had not updated yet. */
    public void clear() {
        for (Map<String, Map<Device, NDArray>> kind : maps) {
            kind.values().forEach(perDevice -> perDevice.values().forEach(NDArray::close));
            kind.clear();
        }
    }
}
