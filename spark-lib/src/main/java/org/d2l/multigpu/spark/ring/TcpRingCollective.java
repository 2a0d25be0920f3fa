package org.d2l.multigpu.spark.ring;

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
 * counted on its sockets. A reduce to one rank costs an allreduce here, and a broadcast passes the root's
 * values round the ring as a message; the trainers need neither: every rank updates its own replica with the
 * allreduced gradients.
 */
public final class TcpRingCollective implements Collective {

    private final TcpRing ring;
    private final int bucket;

    /** This rank of {@code ring}, allreducing in buckets of at most {@code bucket} elements. */
    public TcpRingCollective(TcpRing ring, int bucket) {
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

    /**
     * Over the ring, a reduce costs an allreduce: a reduce-scatter of this rank's array (zero when it is not among
     * {@code from}) and the others', as the in-process ring's reduce sums them when every rank takes part, then an
     * all-gather of the summed chunks; the root alone keeps the sum, in {@code into}.
     */
    @Override
    public Traffic reduce(String key, List<NDArray> data, int[] from, NDArray into, int root) {
        int rank = ring.rank();
        checkRoot(root);
        boolean takesPart = java.util.Arrays.stream(from).anyMatch(i -> i == rank);
        float[] values = takesPart ? mine(data).toFloatArray() : new float[Math.toIntExact(rank == root ? into.size()
                : mine(data).size())];
        return counted(() -> {
            ring.reduceScatter(values);
            ring.allGather(values);
        }, () -> {
            if (rank == root) {
                write(values, into);
            }
        }, -1);
    }

    /**
     * Over the ring, the root's array travels as a message, every other rank forwarding it once (the rank before
     * the root excepted), and each rank copies it into its own entry of {@code data}.
     */
    @Override
    public Traffic broadcast(NDArray value, int root, List<NDArray> data) {
        int rank = ring.rank();
        int k = ring.size();
        checkRoot(root);
        NDArray mine = mine(data);
        byte[][] all = new byte[k][];
        all[rank] = rank == root ? bytes(value.toFloatArray()) : new byte[0];
        long sends = rank == (root + k - 1) % k ? 0 : mine.size(); // every rank passes the root's values on but the last
        long receives = rank == root ? 0 : mine.size();
        return counted(() -> ring.allGather(all), () -> {
            if (rank != root) {
                float[] v = new float[all[root].length / Float.BYTES];
                java.nio.ByteBuffer.wrap(all[root]).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
                write(v, mine);
            } else if (mine != value) {
                OnDevice.copyInto(value, mine);
            }
        }, sends, receives);
    }

    private void checkRoot(int root) {
        if (root < 0 || root >= ring.size()) {
            throw new IllegalArgumentException("The root must be a rank of the ring, 0 to " + (ring.size() - 1)
                    + ", got " + root + ".");
        }
    }

    private static byte[] bytes(float[] values) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(Float.BYTES * values.length)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(values);
        return buf.array();
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
        return counted(io, after, elements, elements);
    }

    /** As {@link #counted(Io, Runnable, long)}, with the elements this rank sent and received told apart. */
    private Traffic counted(Io io, Runnable after, long sentElements, long receivedElements) {
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
        se[ring.rank()] = sentElements < 0 ? s[ring.rank()] / Float.BYTES : sentElements;
        re[ring.rank()] = receivedElements < 0 ? r[ring.rank()] / Float.BYTES : receivedElements;
        return new Traffic(se, re, s, r);
    }
}
