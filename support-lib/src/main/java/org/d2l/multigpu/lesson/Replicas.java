package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;

/** Whether the parameter copies that replicas hold after a step are still the same, bit for bit. */
public final class Replicas {

    private Replicas() {}

    /**
     * True when every replica's parameters ({@code deviceParams.get(i)}, in one order) equal replica 0's
     * bit for bit; a copy on another device is brought to replica 0's device to compare.
     */
    public static boolean identical(List<List<NDArray>> deviceParams) {
        List<NDArray> p0 = deviceParams.get(0);
        for (List<NDArray> p : deviceParams.subList(1, deviceParams.size())) {
            if (p.size() != p0.size()) {
                throw new IllegalArgumentException("Replica 0 holds " + p0.size() + " parameters and another "
                        + p.size() + ": give every replica the same list of parameters.");
            }
            for (int j = 0; j < p0.size(); j++) {
                if (!equal(p0.get(j), p.get(j))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean equal(NDArray a, NDArray b) {
        if (a.getDevice().equals(b.getDevice())) {
            return a.contentEquals(b);
        }
        try (NDManager tmp = a.getManager().newSubManager()) {
            NDArray moved = b.toDevice(a.getDevice(), true);
            moved.attach(tmp);
            return a.contentEquals(moved);
        }
    }
}
