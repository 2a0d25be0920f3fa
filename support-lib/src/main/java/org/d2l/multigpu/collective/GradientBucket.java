package org.d2l.multigpu.collective;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntPredicate;
import org.d2l.multigpu.devices.OnDevice;

/**
 * The arrays that leave the replicas together, as DDP's {@code GradBucket}: entry j is one parameter's gradient,
 * or a running statistic to be summed as it is, on every replica (index i for replica i, null for a replica in
 * another process); a {@link GradientHook} sums them over the replicas into every replica's arrays.
 */
public final class GradientBucket {

    private final List<String> keys = new ArrayList<>();
    private final List<List<NDArray>> arrays = new ArrayList<>();
    private final List<Boolean> gradient = new ArrayList<>();

    /** Adds parameter {@code key}'s gradients, one per replica, which a compression hook may compress. */
    public GradientBucket addGradient(String key, List<NDArray> perReplica) {
        return add(key, perReplica, true);
    }

    /** Adds arrays summed exactly whatever the hook (running statistics), one per replica. */
    public GradientBucket addExact(String key, List<NDArray> perReplica) {
        return add(key, perReplica, false);
    }

    private GradientBucket add(String key, List<NDArray> perReplica, boolean isGradient) {
        if (!arrays.isEmpty() && arrays.get(0).size() != perReplica.size()) {
            throw new IllegalArgumentException("Entry " + key + " has " + perReplica.size() + " replicas' arrays, the "
                    + "bucket's others " + arrays.get(0).size() + ": give every entry one array per replica (null for "
                    + "a replica in another process).");
        }
        keys.add(key);
        arrays.add(Collections.unmodifiableList(new ArrayList<>(perReplica))); // nulls allowed: replicas elsewhere
        gradient.add(isGradient);
        return this;
    }

    /** The number of entries. */
    public int size() {
        return keys.size();
    }

    /** Entry j's name (a parameter's id, or a statistic's). */
    public String key(int j) {
        return keys.get(j);
    }

    /** Entry j's arrays, one per replica (null for replicas elsewhere). */
    public List<NDArray> arrays(int j) {
        return arrays.get(j);
    }

    /** Whether entry j is a gradient (a compression hook may compress it) rather than a statistic summed exactly. */
    public boolean isGradient(int j) {
        return gradient.get(j);
    }

    /** The entries {@code which} accepts, in order, as a bucket of their own (the same arrays). */
    public GradientBucket only(IntPredicate which) {
        GradientBucket b = new GradientBucket();
        for (int j = 0; j < size(); j++) {
            if (which.test(j)) {
                b.add(keys.get(j), arrays.get(j), gradient.get(j));
            }
        }
        return b;
    }

    /**
     * Sums every entry over the replicas through one allreduce of {@code wire} per bucket: each replica's entries
     * flattened into one array in entry order, summed, and copied back; returns the traffic.
     */
    public Traffic allreduceFlat(Collective wire) {
        if (size() == 0) {
            throw new IllegalStateException("An empty bucket has nothing to send: add an entry first.");
        }
        int k = arrays.get(0).size();
        List<NDManager> managers = new ArrayList<>(k);
        List<NDArray> flats = new ArrayList<>(k);
        try {
            for (int i = 0; i < k; i++) {
                NDArray first = arrays.get(0).get(i);
                if (first == null) {
                    managers.add(null);
                    flats.add(null);
                    continue;
                }
                NDManager m = first.getManager().newSubManager();
                managers.add(m);
                NDList parts = new NDList(size());
                for (int j = 0; j < size(); j++) {
                    NDArray a = arrays.get(j).get(i);
                    NDArray part = a.reshape(-1);
                    part.attach(m);
                    parts.add(part);
                }
                NDArray flat = size() == 1 ? parts.get(0).duplicate() : NDArrays.concat(parts);
                flat.attach(m);
                flats.add(flat);
            }
            Traffic t = wire.allreduce(keys.size() == 1 ? keys.get(0) : "bucket of " + keys.get(0), flats);
            for (int i = 0; i < k; i++) {
                NDArray flat = flats.get(i);
                if (flat == null) {
                    continue;
                }
                long at = 0;
                for (int j = 0; j < size(); j++) {
                    NDArray a = arrays.get(j).get(i);
                    long n = a.size();
                    OnDevice.copyInto(flat.get(new NDIndex(at + ":" + (at + n))).reshape(a.getShape()), a);
                    at += n;
                }
            }
            return t;
        } finally {
            managers.stream().filter(m -> m != null).forEach(NDManager::close);
        }
    }

}
