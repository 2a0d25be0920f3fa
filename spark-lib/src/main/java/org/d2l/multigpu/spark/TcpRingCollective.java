package org.d2l.multigpu.spark;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.RingSchedule;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;

/**
 * The collective seam between Spark executors: one rank of a {@link TcpRing}, which holds one replica, so
 * that of every list of one array per replica only the entry at this rank's index is here (the others
 * are in other processes and may be null). Allreduce, reduce-scatter and all-gather run over the ring
 * (float32 on the wire), a compressor's messages as length-framed bytes; the traffic is this rank's,
 * counted on its sockets. There is no reduce to one
 * rank nor broadcast from one: every rank updates its own replica with the allreduced gradients.
 */
final class TcpRingCollective implements Collective {

    private final TcpRing ring;
    private final int bucket;

    /** This rank of {@code ring}, allreducing in buckets of at most {@code bucket} elements. */
    TcpRingCollective(TcpRing ring, int bucket) {
        this.ring = ring;
        this.bucket = bucket;
    }

    @Override
    public Traffic allreduce(String key, List<NDArray> data) {
        NDArray mine = mine(data);
        float[] values = mine.toFloatArray();
        return counted(() -> ring.allreduce(values, bucket), () -> write(values, mine), -1);
    }

    @Override
    public Traffic reduceScatter(List<NDArray> data, List<NDArray> shards) {
        NDArray mine = mine(data);
        float[] values = mine.toFloatArray();
        int rank = ring.rank();
        RingSchedule chunks = RingSchedule.ownChunks(values.length, ring.size()); // the chunks TcpRing uses
        return counted(() -> ring.reduceScatter(values), () -> {
            try (NDManager tmp = mine.getManager().newSubManager()) {
                NDArray all = tmp.create(values);
                NDArray own = all.get(new NDIndex("{}:{}", chunks.chunkStart(rank), chunks.chunkEnd(rank)));
                OnDevice.copyInto(own.reshape(shards.get(rank).getShape()), shards.get(rank));
            }
        }, -1);
    }

    @Override
    public Traffic allGather(List<NDArray> shards, List<NDArray> data) {
        NDArray mine = mine(data);
        float[] values = new float[Math.toIntExact(mine.size())];
        int rank = ring.rank();
        float[] own = shards.get(rank).toFloatArray();
        long start = RingSchedule.ownChunks(values.length, ring.size()).chunkStart(rank); // the chunks TcpRing uses
        System.arraycopy(own, 0, values, (int) start, own.length);
        return counted(() -> ring.allGather(values), () -> write(values, mine), -1);
    }

    @Override
    public Traffic allGatherMessages(List<byte[]> messages, long elements) {
        byte[][] all = messages.toArray(new byte[0][]);
        long forwarded = (ring.size() - 1) * elements; // k - 1 messages each way, each standing for that many values
        return counted(() -> ring.allGather(all), () -> {
            for (int i = 0; i < all.length; i++) {
                messages.set(i, all[i]);
            }
        }, forwarded);
    }

    @Override
    public Traffic reduce(String key, List<NDArray> data, int[] from, NDArray into, int root) {
        throw new UnsupportedOperationException("The TCP ring between Spark executors has no reduce to one rank: every "
                + "rank updates its own replica with the allreduced gradients (allreduce).");
    }

    @Override
    public Traffic broadcast(NDArray value, int root, List<NDArray> data) {
        throw new UnsupportedOperationException("The TCP ring between Spark executors has no broadcast from one rank: "
                + "the driver sends the starting parameters to every task, and the ranks stay equal by allreducing.");
    }

    @Override
    public String describe() {
        return "TCP ring between " + ring.size() + " Spark tasks (buckets of " + bucket + " elements)";
    }

    private NDArray mine(List<NDArray> data) {
        if (data.size() != ring.size() || data.get(ring.rank()) == null) {
            throw new IllegalArgumentException("A collective over the TCP ring takes one entry per rank (" + ring.size()
                    + "), this rank's (" + ring.rank() + ") an array; got " + data.size() + " entries.");
        }
        return data.get(ring.rank());
    }

    private static void write(float[] values, NDArray into) {
        try (NDManager tmp = into.getManager().newSubManager()) {
            OnDevice.copyInto(tmp.create(values, into.getShape()), into);
        }
    }

    private interface Io {
        void run() throws IOException;
    }

    /**
     * Runs {@code io} on the ring, then {@code after}; returns the bytes this rank sent and received meanwhile,
     * and as elements {@code elements} each way (-1: the bytes over 4, float32 on the wire).
     */
    private Traffic counted(Io io, Runnable after, long elements) {
        long sent = ring.bytesSent();
        long received = ring.bytesReceived();
        try {
            io.run();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex.getMessage(), ex);
        }
        after.run();
        int k = ring.size();
        long[] s = new long[k];
        long[] r = new long[k];
        s[ring.rank()] = ring.bytesSent() - sent;
        r[ring.rank()] = ring.bytesReceived() - received;
        long[] se = new long[k];
        long[] re = new long[k];
        se[ring.rank()] = elements < 0 ? s[ring.rank()] / Float.BYTES : elements;
        re[ring.rank()] = elements < 0 ? r[ring.rank()] / Float.BYTES : elements;
        return new Traffic(se, re, s, r);
    }
}
