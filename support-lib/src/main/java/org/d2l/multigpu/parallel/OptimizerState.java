package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.training.optimizer.Optimizer;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-parameter state of a DJL optimizer (SGD's momentum, NAG's, Adam's two moments): DJL has
 * no API for it, so it is found by reflection as the optimizer's fields of type
 * {@code Map<String, Map<Device, NDArray>>}, the form every DJL 0.35 optimizer keeps its state in.
 */
public final class OptimizerState {

    private static final NDIndex ALL = new NDIndex("...");

    private final List<Map<String, Map<Device, NDArray>>> maps;

    private OptimizerState(List<Map<String, Map<Device, NDArray>>> maps) {
        this.maps = maps;
    }

    /** The state maps of {@code optimizer} (none for plain SGD without momentum). */
    @SuppressWarnings("unchecked")
    public static OptimizerState of(Optimizer optimizer) {
        List<Map<String, Map<Device, NDArray>>> maps = new ArrayList<>();
        for (Class<?> c = optimizer.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && isStateMap(f.getGenericType())) {
                    try {
                        f.setAccessible(true);
                        Object value = f.get(optimizer);
                        if (value != null) {
                            maps.add((Map<String, Map<Device, NDArray>>) value);
                        }
                    } catch (ReflectiveOperationException | RuntimeException ex) {
                        throw new IllegalStateException("Cannot read the state of optimizer "
                                + optimizer.getClass().getName() + " (field " + f.getName()
                                + "): turn averaging of updater state off with averageUpdaters(false).", ex);
                    }
                }
            }
        }
        return new OptimizerState(maps);
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
                bytes += s.size() * s.getDataType().getNumOfBytes();
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
            NDArray moved = value.toDevice(device, false);
            current.set(ALL, moved);
            if (moved != value) {
                moved.close(); // a copy made only to cross devices
            }
            return;
        }
        NDArray copy = value.toDevice(device, true);
        if (copy == value) {
            copy = value.duplicate();
        }
        copy.detach();
        maps.get(kind).computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(device, copy);
    }
}
