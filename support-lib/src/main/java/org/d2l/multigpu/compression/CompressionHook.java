package org.d2l.multigpu.compression;

import ai.djl.ndarray.NDArray;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.GradientBucket;
import org.d2l.multigpu.collective.GradientHook;
import org.d2l.multigpu.collective.Traffic;

/**
 * The hook gradients leave through when they are compressed, as DDP's communication hook: a {@link Compressor}
 * and the {@link CompressionState} it keeps between steps (residuals, thresholds, Q, which checkpoints carry),
 * over the collective that moves its messages; each gradient of a bucket is compressed on its own (its name the
 * key of its state, its shape PowerSGD's matrix), and what is not a gradient goes through that collective as it is.
 */
public final class CompressionHook implements GradientHook {

    private final Compressor compressor;
    private final Collective wire;
    private final CompressionState state = new CompressionState();

    private CompressionHook(Compressor compressor, Collective wire) {
        this.compressor = compressor;
        this.wire = wire;
    }

    /** {@code compressor} over {@code wire}, with a state of its own. */
    public static CompressionHook of(Compressor compressor, Collective wire) {
        if (compressor == null || wire == null) {
            throw new IllegalArgumentException("A compression hook needs a compressor and a collective to send through.");
        }
        return new CompressionHook(compressor, wire);
    }

    @Override
    public Traffic allreduce(GradientBucket bucket) {
        Traffic t = Traffic.none(bucket.arrays(0).size());
        for (int j = 0; j < bucket.size(); j++) {
            if (bucket.isGradient(j)) {
                t = t.plus(compressor.allreduce(bucket.key(j), bucket.arrays(j), wire, state));
            }
        }
        GradientBucket exact = bucket.only(j -> !bucket.isGradient(j));
        return exact.size() == 0 ? t : t.plus(exact.allreduceFlat(wire)); // running statistics: exact sums
    }

    /**
     * Sums the replicas' gradients of one parameter {@code key} (null for replicas in other processes), compressed,
     * into every replica's array in place; returns what each replica sent and received.
     */
    public Traffic allreduce(String key, List<NDArray> grads) {
        return compressor.allreduce(key, grads, wire, state);
    }

    /** The compressor. */
    public Compressor compressor() {
        return compressor;
    }

    /** What the compressor remembers between steps (residuals, thresholds, Q), which checkpoints carry. */
    public CompressionState state() {
        return state;
    }

    /** The collective under the hook, which moves arrays as they are (running statistics, parameters). */
    public Collective wire() {
        return wire;
    }

    /** The compressor and the collective it sends through, in words. */
    public String describe() {
        return compressor.describe() + " over " + wire.describe();
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
}
