package org.d2l.multigpu.optimizer;

import ai.djl.training.optimizer.Optimizer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.d2l.multigpu.runtime.DjlFields;

/**
 * How many updates a DJL optimizer has counted (Adam's bias correction and learning-rate schedules read
 * them): its private {@code updateCounts} per state key, {@code numUpdate} and {@code beginNumUpdate},
 * read and set by reflection as DJL has no API for them, as {@code key=value} text for checkpoints.
 */
public final class OptimizerCounts {

    private static final String NEEDED_FOR = "a checkpoint of the optimizer's update counts";

    private OptimizerCounts() {}

    /** The counts of {@code optimizer}, its state keys renamed by {@code rename}. */
    @SuppressWarnings("unchecked")
    public static Map<String, String> of(Optimizer optimizer, UnaryOperator<String> rename) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("numUpdate", String.valueOf(get(optimizer, "numUpdate")));
        out.put("beginNumUpdate", String.valueOf(get(optimizer, "beginNumUpdate")));
        ((Map<String, Integer>) get(optimizer, "updateCounts"))
                .forEach((k, v) -> out.put("updateCount." + rename.apply(k), String.valueOf(v)));
        return out;
    }

    /** Sets the counts of {@code optimizer} to {@code saved}, the state keys renamed back by {@code rename}. */
    @SuppressWarnings("unchecked")
    public static void load(Optimizer optimizer, Map<String, String> saved, UnaryOperator<String> rename) {
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
        return DjlFields.get(Optimizer.class, name, optimizer, NEEDED_FOR);
    }

    private static void set(Optimizer optimizer, String name, Object value) {
        DjlFields.set(Optimizer.class, name, optimizer, value, NEEDED_FOR);
    }
}
