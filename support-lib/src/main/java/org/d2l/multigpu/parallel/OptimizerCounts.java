package org.d2l.multigpu.parallel;

import ai.djl.training.optimizer.Optimizer;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * How many updates a DJL optimizer has counted (Adam's bias correction and learning-rate schedules read
 * them): its private {@code updateCounts} per state key, {@code numUpdate} and {@code beginNumUpdate},
 * read and set by reflection as DJL has no API for them, as {@code key=value} text for checkpoints.
 */
final class OptimizerCounts {

    private OptimizerCounts() {}

    /** The counts of {@code optimizer}, its state keys renamed by {@code rename}. */
    @SuppressWarnings("unchecked")
    static Map<String, String> of(Optimizer optimizer, UnaryOperator<String> rename) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("numUpdate", String.valueOf(get(optimizer, "numUpdate")));
        out.put("beginNumUpdate", String.valueOf(get(optimizer, "beginNumUpdate")));
        ((Map<String, Integer>) get(optimizer, "updateCounts"))
                .forEach((k, v) -> out.put("updateCount." + rename.apply(k), String.valueOf(v)));
        return out;
    }

    /** Sets the counts of {@code optimizer} to {@code saved}, the state keys renamed back by {@code rename}. */
    @SuppressWarnings("unchecked")
    static void load(Optimizer optimizer, Map<String, String> saved, UnaryOperator<String> rename) {
        set(optimizer, "numUpdate", Integer.valueOf(saved.get("numUpdate")));
        set(optimizer, "beginNumUpdate", Integer.valueOf(saved.get("beginNumUpdate")));
        Map<String, Integer> counts = (Map<String, Integer>) get(optimizer, "updateCounts");
        counts.clear();
        saved.forEach((k, v) -> {
            if (k.startsWith("updateCount.")) {
                counts.put(rename.apply(k.substring("updateCount.".length())), Integer.valueOf(v));
            }
        });
    }

    private static Object get(Optimizer optimizer, String name) {
        try {
            return field(name).get(optimizer);
        } catch (ReflectiveOperationException ex) {
            throw missing(name, ex);
        }
    }

    private static void set(Optimizer optimizer, String name, Object value) {
        try {
            field(name).set(optimizer, value);
        } catch (ReflectiveOperationException ex) {
            throw missing(name, ex);
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field f = Optimizer.class.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    private static IllegalStateException missing(String name, Exception ex) {
        return new IllegalStateException("Cannot read or set the update count of the optimizer (DJL's Optimizer."
                + name + "): checkpoints of the optimizer need DJL 0.35's optimizers.", ex);
    }
}
