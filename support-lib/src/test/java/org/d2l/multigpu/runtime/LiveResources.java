package org.d2l.multigpu.runtime;

import ai.djl.ndarray.BaseNDManager;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDResource;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live arrays and managers under DJL's root manager, counted by walking the managers' resources
 * (DJL's {@code BaseNDManager} keeps them in its {@code resources} and {@code tempResources} maps).
 */
public record LiveResources(long arrays, long managers) {

    /** What is alive now under the engine's system manager, the root of every manager. */
    public static LiveResources now() {
        NDManager probe = NDManager.newBaseManager();
        NDManager root = probe.getParentManager();
        probe.close();
        long[] counts = new long[2];
        walk(root, counts);
        return new LiveResources(counts[0], counts[1]);
    }

    private static void walk(NDManager m, long[] counts) {
        counts[1]++;
        for (Object r : field(m, "resources").values()) {
            if (r instanceof NDManager sub) {
                walk(sub, counts);
            } else if (r instanceof NDArray) {
                counts[0]++;
            } else if (r instanceof NDResource res) {
                counts[0] += res.getResourceNDArrays().size();
            }
        }
        counts[0] += field(m, "tempResources").size();
    }

    /** How many managers sit directly under {@code m}. */
    public static long subManagers(NDManager m) {
        return field(m, "resources").values().stream().filter(r -> r instanceof NDManager).count();
    }

    /** Every live manager under the root, by uid, each with where it sits: its device and its ancestors'. */
    public static Map<String, String> managerTree() {
        NDManager probe = NDManager.newBaseManager();
        NDManager root = probe.getParentManager();
        probe.close();
        Map<String, String> out = new LinkedHashMap<>();
        describe(root, "", out);
        return out;
    }

    private static void describe(NDManager m, String path, Map<String, String> out) {
        List<String> arrays = new ArrayList<>();
        for (Object r : field(m, "resources").values()) {
            if (r instanceof NDArray a && arrays.size() < 3) {
                arrays.add(a.getName() + a.getShape() + a.getDataType());
            }
        }
        String here = path + " > " + m.getDevice() + (arrays.isEmpty() ? "" : " holding " + arrays);
        out.put(m.getName(), here);
        for (Object r : field(m, "resources").values()) {
            if (r instanceof NDManager sub) {
                describe(sub, here, out);
            }
        }
    }

    private static Map<?, ?> field(NDManager m, String name) {
        try {
            Field f = BaseNDManager.class.getDeclaredField(name);
            f.setAccessible(true);
            return (Map<?, ?>) f.get(m);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("DJL's BaseNDManager has no field " + name + ": " + e, e);
        }
    }

    @Override
    public String toString() {
        return arrays + " arrays in " + managers + " managers";
    }
}
