package org.d2l.multigpu.collective;

import ai.djl.ndarray.NDArray;
import java.util.List;

/**
 * The one seam through which data-parallel training moves gradients, parameters and statistics between
 * replicas: each operation works on one array per replica, index i for replica i, and returns the
 * {@link Traffic} it caused; compressed gradients leave through a hook over it, as DDP's communication hook
 * ({@code org.d2l.multigpu.compression.CompressionHook}). In process every entry is an array; a collective
 * between processes (a Spark rank's) reads and writes only its own entry, and the others may be null.
 */
public interface Collective {

    /**
     * Sums {@code data.get(i)} for every i of {@code from}, in that order, into {@code into}, which lives on
     * replica {@code root}'s device and may be one of them; the other arrays are left as they were.
     * {@code key} names what is reduced (a parameter's id), for collectives that keep state per array.
     */
    Traffic reduce(String key, List<NDArray> data, int[] from, NDArray into, int root);

    /** Copies {@code value}, on replica {@code root}'s device, into every array of {@code data}. */
    Traffic broadcast(NDArray value, int root, List<NDArray> data);

    /** Sums the arrays of {@code data} so that afterwards every one holds the sum; {@code key} as in {@link #reduce}. */
    Traffic allreduce(String key, List<NDArray> data);

    /** Ring reduce-scatter: shard i receives the sum of chunk i of every array ({@link Ring#reduceScatter}). */
    Traffic reduceScatter(List<NDArray> data, List<NDArray> shards);

    /** Ring all-gather: shard i is copied into chunk i of every array ({@link Ring#allGather}). */
    Traffic allGather(List<NDArray> shards, List<NDArray> data);

    /**
     * Every replica's message to every other, as compressors send their encoded arrays (an all-gather of
     * bytes): entry i of {@code messages} (a mutable list) is replica i's, and on return every entry holds
     * its replica's message; each message stands for {@code elements} values, which the traffic counts.
     */
    Traffic allGatherMessages(List<byte[]> messages, long elements);

    /** One line saying how this collective moves arrays, for logs and notebooks. */
    String describe();

    /** The in-process path: reduce and broadcast through one root, allreduce through replica 0. */
    static Collective direct() {
        return InProcessCollective.DIRECT;
    }

    /** The in-process ring: reduce as reduce-scatter and a gather, allreduce as ring allreduce. */
    static Collective ring() {
        return InProcessCollective.RING;
    }
}
