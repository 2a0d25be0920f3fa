package org.d2l.multigpu.compression;

import ai.djl.ndarray.NDArray;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;

/**
 * A {@link Collective} that compresses what it sums: {@link #allreduce} and {@link #reduce} go through a
 * {@link Compressor} and its {@link CompressionState}; broadcast, reduce-scatter, all-gather (parameters,
 * not gradients) and messages go through the wrapped collective as they are, as does {@link #plain()}.
 */
public final class Compression implements Collective {

    private final Compressor compressor;
    private final Collective wire;
    private final CompressionState state = new CompressionState();

    private Compression(Compressor compressor, Collective wire) {
        this.compressor = compressor;
        this.wire = wire;
    }

    /** {@code compressor} over {@code wire} (which moves what is not compressed), with a state of its own. */
    public static Compression of(Compressor compressor, Collective wire) {
        if (compressor == null || wire == null) {
            throw new IllegalArgumentException("Compression needs a compressor and a collective to send through.");
        }
        return new Compression(compressor, wire);
    }

    /** The compressor. */
    public Compressor compressor() {
        return compressor;
    }

    /** What the compressor remembers between steps (residuals, thresholds, Q), which checkpoints carry. */
    public CompressionState state() {
        return state;
    }

    /** The first array of {@code data} that is in this process (the others are null: replicas elsewhere). */
    static NDArray firstHere(List<NDArray> data) {
        for (NDArray a : data) {
            if (a != null) {
                return a;
            }
        }
        throw new IllegalArgumentException("A compressed allreduce needs this process's array; every entry is null.");
    }

    /** The collective under the compressor, which moves arrays as they are (running statistics, parameters). */
    public Collective plain() {
        return wire;
    }

    @Override
    public Traffic allreduce(String key, List<NDArray> data) {
        return compressor.allreduce(key, data, wire, state);
    }

    /**
     * The compressed allreduce of the arrays of the first replicas {@code from} (0, 1, ..., m - 1, so that each
     * keeps its own residual), whose result goes into {@code into}: it sends what {@link #allreduce} sends
     * among those replicas.
     */
    @Override
    public Traffic reduce(String key, List<NDArray> data, int[] from, NDArray into, int root) {
        for (int j = 0; j < from.length; j++) {
            if (from[j] != j) {
                throw new IllegalArgumentException("A compressed reduce sums the first replicas, 0 to m - 1, in order "
                        + "(each keeps its residual under its own index); got " + java.util.Arrays.toString(from) + ".");
            }
        }
        List<NDArray> part = new ArrayList<>(from.length);
        for (int i : from) {
            part.add(data.get(i).duplicate()); // the compressed allreduce writes its result into every array
        }
        try {
            Traffic t = compressor.allreduce(key, part, wire, state);
            OnDevice.copyInto(part.get(0), into);
            return t.placed(from, data.size());
        } finally {
            part.forEach(NDArray::close);
        }
    }

    @Override
    public Traffic broadcast(NDArray value, int root, List<NDArray> data) {
        return wire.broadcast(value, root, data);
    }

    @Override
    public Traffic reduceScatter(List<NDArray> data, List<NDArray> shards) {
        return wire.reduceScatter(data, shards);
    }

    @Override
    public Traffic allGather(List<NDArray> shards, List<NDArray> data) {
        return wire.allGather(shards, data);
    }

    @Override
    public Traffic allGatherMessages(List<byte[]> messages, long elements) {
        return wire.allGatherMessages(messages, elements);
    }

    @Override
    public String describe() {
        return compressor.describe() + " over " + wire.describe();
    }
}
