package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.compression.CompressionState;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.eval.Timer;

/**
 * Each replica's gradient of a block's trained parameters on its share of one minibatch, weighted by that
 * share so that they sum to the minibatch's gradient, kept as float arrays: what a compressor sends to sum
 * them, and how long that takes.
 */
public final class ReplicaGradients {

    private final List<Map<String, float[]>> grads;
    private final Map<String, Shape> shapes;

    private ReplicaGradients(List<Map<String, float[]>> grads, Map<String, Shape> shapes) {
        this.grads = grads;
        this.shapes = shapes;
    }

    /** The gradients of {@code loss} on ({@code x}, {@code y}) split into {@code replicas} shards, one per replica. */
    public static ReplicaGradients of(Block net, NDArray x, NDArray y, Loss loss, int replicas) {
        long n = x.getShape().get(0);
        if (replicas < 1 || replicas > n) {
            throw new IllegalArgumentException("Cannot split a minibatch of " + n + " examples over " + replicas
                    + " replicas: give between 1 and " + n + ".");
        }
        long[] ends = Devices.shardEnds(n, replicas);
        List<Map<String, float[]>> grads = new ArrayList<>();
        Map<String, Shape> shapes = new LinkedHashMap<>();
        try (NDManager tmp = x.getManager().newSubManager()) {
            for (int i = 0; i < replicas; i++) {
                long from = i == 0 ? 0 : ends[i - 1];
                long to = i == replicas - 1 ? n : ends[i];
                NDArray xi = x.get(from + ":" + to);
                NDArray yi = y.get(from + ":" + to);
                tmp.tempAttachAll(xi, yi);
                Map<String, float[]> g = new LinkedHashMap<>();
                Gradients.of(net, xi, yi, loss, DataType.FLOAT32, (to - from) / (float) n, tmp).forEach((name, a) -> {
                    g.put(name, a.toFloatArray());
                    shapes.put(name, a.getShape());
                });
                grads.add(g);
            }
        }
        return new ReplicaGradients(grads, shapes);
    }

    /** Replica {@code replica}'s gradient of the parameter {@code name}, as a copy. */
    public float[] get(int replica, String name) {
        float[] g = grads.get(replica).get(name);
        if (g == null) {
            throw new IllegalArgumentException("No trained parameter is named '" + name + "': the names are "
                    + shapes.keySet() + ".");
        }
        return g.clone();
    }

    /** The name of the parameter with the most values. */
    public String largest() {
        String best = null;
        for (Map.Entry<String, Shape> e : shapes.entrySet()) {
            if (best == null || e.getValue().size() > shapes.get(best).size()) {
                best = e.getKey();
            }
        }
        return best;
    }

    /** The number of replicas. */
    public int replicas() {
        return grads.size();
    }

    /** The number of trained parameter arrays. */
    public int arrays() {
        return shapes.size();
    }

    /** The number of values in all of one replica's gradients. */
    public long size() {
        return shapes.values().stream().mapToLong(Shape::size).sum();
    }

    /** The bytes each replica sends when {@code c} sums every gradient once, from a fresh state. */
    public long[] sentBytes(Compressor c) {
        long[] bytes = new long[replicas()];
        CompressionState state = new CompressionState();
        try (NDManager tmp = NDManager.newBaseManager()) {
            arraysIn(tmp).forEach((name, data) -> {
                Traffic t = c.allreduce(name, data, Collective.direct(), state);
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i] += t.sentBytes()[i];
                }
            });
        }
        return bytes;
    }

    /**
     * The median milliseconds of {@code timed} allreduces of every gradient by {@code c} (null: uncompressed,
     * through {@link Collective#direct()}) after {@code warmUps} untimed ones, one state carried through all.
     */
    public double allreduceMs(Compressor c, int warmUps, int timed) {
        if (timed < 1 || warmUps < 0) {
            throw new IllegalArgumentException("Time at least one allreduce after zero or more warm-ups, not "
                    + timed + " after " + warmUps + ".");
        }
        Timer kept = new Timer();
        CompressionState state = new CompressionState();
        for (int i = -warmUps; i < timed; i++) {
            try (NDManager tmp = NDManager.newBaseManager()) {
                Map<String, List<NDArray>> arrays = arraysIn(tmp);
                long start = System.nanoTime();
                arrays.forEach((name, data) -> {
                    if (c == null) {
                        Collective.direct().allreduce(name, data);
                    } else {
                        c.allreduce(name, data, Collective.direct(), state);
                    }
                });
                if (i >= 0) {
                    kept.record((System.nanoTime() - start) / 1e9);
                }
            }
        }
        return kept.median() * 1e3;
    }

    /** Fresh arrays of every replica's gradients, by parameter name, attached to {@code manager}. */
    private Map<String, List<NDArray>> arraysIn(NDManager manager) {
        Map<String, List<NDArray>> arrays = new LinkedHashMap<>();
        for (Map.Entry<String, Shape> e : shapes.entrySet()) {
            List<NDArray> data = new ArrayList<>();
            for (Map<String, float[]> g : grads) {
                data.add(manager.create(g.get(e.getKey()), e.getValue()));
            }
            arrays.put(e.getKey(), data);
        }
        return arrays;
    }
}
