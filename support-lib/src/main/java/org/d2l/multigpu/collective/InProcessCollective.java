package org.d2l.multigpu.collective;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.OnDevice;

/**
 * The collectives between replicas in one process, on their devices: {@link Collective#direct()} sums
 * in replica order on the root (bit for bit what one device would add up), {@link Collective#ring()}
 * runs the ring's steps; both broadcast from the root to each replica and use the ring for
 * reduce-scatter and all-gather (of arrays; messages go directly, or round the ring).
 */
final class InProcessCollective implements Collective {

    static final InProcessCollective DIRECT = new InProcessCollective(false);
    static final InProcessCollective RING = new InProcessCollective(true);

    private final boolean ring;

    private InProcessCollective(boolean ring) {
        this.ring = ring;
    }

    @Override
    public Traffic reduce(String key, List<NDArray> data, int[] from, NDArray into, int root) {
        if (from.length == 0) {
            throw new IllegalArgumentException("reduce of " + key + " needs at least one array to sum.");
        }
        return ring && from.length > 1 ? ringReduce(data, from, into, root) : directReduce(data, from, into, root);
    }

    /** Every replica of {@code from} but the root sends its array to the root, which adds them in order. */
    static Traffic directReduce(List<NDArray> data, int[] from, NDArray into, int root) {
        int k = data.size();
        boolean inPlace = data.get(from[0]) == into;
        for (int j = 1; j < from.length && inPlace; j++) {
            inPlace = data.get(from[j]) != into;
        }
        if (inPlace && from.length == 1) {
            return Traffic.none(k); // the root's own array: nothing moves (and its shape is not read: a native call)
        }
        long n = into.size();
        long[] sent = new long[k];
        long[] received = new long[k];
        try (NDManager tmp = into.getManager().newSubManager()) {
            NDArray sum = inPlace ? into : OnDevice.copy(data.get(from[0]), into.getDevice(), tmp);
            for (int j = 0; j < from.length; j++) {
                if (j > 0) {
                    OnDevice.addInto(data.get(from[j]), sum); // a copy made to cross devices is freed at once
                }
                if (from[j] != root) {
                    sent[from[j]] += n;
                    received[root] += n;
                }
            }
            if (!inPlace) {
                OnDevice.copyInto(sum, into);
            }
        }
        return Traffic.elements(sent, received, into.getDataType().getNumOfBytes());
    }

    /** Ring reduce-scatter among {@code from}, then each one's summed chunk to the root. */
    private static Traffic ringReduce(List<NDArray> data, int[] from, NDArray into, int root) {
        int k = data.size();
        int m = from.length;
        List<NDArray> part = new ArrayList<>(m);
        for (int i : from) {
            part.add(data.get(i));
        }
        long[] sent = new long[k];
        long[] received = new long[k];
        Traffic scatter;
        try (NDManager tmp = into.getManager().newSubManager()) {
            List<NDArray> shards = new ArrayList<>(m);
            for (int j = 0; j < m; j++) {
                try (NDArray whole = part.get(j).reshape(-1)) {
                    NDArray s = Ring.shard(whole, m, j);
                    s.attach(tmp);
                    shards.add(s);
                }
            }
            scatter = Ring.reduceScatter(part, shards).placed(from, k);
            RingSchedule chunks = RingSchedule.ownChunks(into.size(), m);
            NDArray flat = tmp.zeros(new Shape(into.size()), into.getDataType(), into.getDevice());
            for (int j = 0; j < m; j++) {
                long size = chunks.chunkSize(j);
                if (size == 0) {
                    continue;
                }
                NDArray chunk = OnDevice.copy(shards.get(j), into.getDevice(), tmp);
                flat.set(new NDIndex("{}:{}", chunks.chunkStart(j), chunks.chunkEnd(j)), chunk);
                if (from[j] != root) {
                    sent[from[j]] += size;
                    received[root] += size;
                }
            }
            OnDevice.copyInto(flat.reshape(into.getShape()), into);
        }
        return scatter.plus(Traffic.elements(sent, received, into.getDataType().getNumOfBytes()));
    }

    @Override
    public Traffic broadcast(NDArray value, int root, List<NDArray> data) {
        int k = data.size();
        long[] sent = new long[k];
        long[] received = new long[k];
        for (int i = 0; i < k; i++) {
            NDArray dst = data.get(i);
            if (dst == value) {
                continue;
            }
            OnDevice.copyInto(value, dst);
            if (i != root) {
                sent[root] += value.size();
                received[i] += value.size();
            }
        }
        return Traffic.elements(sent, received, value.getDataType().getNumOfBytes());
    }

    @Override
    public Traffic allreduce(String key, List<NDArray> data) {
        return ring ? Ring.allreduce(data) : throughFirst(data);
    }

    /**
     * The naive allreduce: sums the arrays of {@code data} (one per replica) into the first, in replica
     * order, then copies that sum back into every other; device 0 receives (k-1) x N and sends (k-1) x N.
     */
    private static Traffic throughFirst(List<NDArray> data) {
        if (data.isEmpty()) {
            throw new IllegalArgumentException("allreduce needs at least one array.");
        }
        int k = data.size();
        long n = data.get(0).size();
        long[] sent = new long[k];
        long[] received = new long[k];
        NDArray first = data.get(0);
        for (int i = 1; i < data.size(); i++) {
            OnDevice.addInto(data.get(i), first); // a copy made to cross devices is freed at once
            sent[i] += n;
            received[0] += n;
        }
        for (int i = 1; i < data.size(); i++) {
            OnDevice.copyInto(first, data.get(i));
            sent[0] += n;
            received[i] += n;
        }
        return Traffic.elements(sent, received, data.get(0).getDataType().getNumOfBytes());
    }

    @Override
    public Traffic reduceScatter(List<NDArray> data, List<NDArray> shards) {
        return Ring.reduceScatter(data, shards);
    }

    @Override
    public Traffic allGather(List<NDArray> shards, List<NDArray> data) {
        return Ring.allGather(shards, data);
    }

    /**
     * Directly, each replica sends its message to each of the other k - 1 (no root); round the ring each
     * sends its own and passes on the ones it received, all but the next replica's own (k - 1 messages).
     */
    @Override
    public Traffic allGatherMessages(List<byte[]> messages, long elements) {
        int k = messages.size();
        long[] sent = new long[k];
        long[] received = new long[k];
        long[] sentBytes = new long[k];
        long[] receivedBytes = new long[k];
        for (int i = 0; i < k; i++) {
            for (int r = 0; r < k; r++) {
                if (r == i) {
                    continue;
                }
                int sender = ring ? (r + k - 1) % k : i; // the ring's message i reaches r from r's previous replica
                sent[sender] += elements;
                sentBytes[sender] += messages.get(i).length;
                received[r] += elements;
                receivedBytes[r] += messages.get(i).length;
            }
        }
        return new Traffic(sent, received, sentBytes, receivedBytes);
    }

    @Override
    public String describe() {
        return ring ? "in-process ring (reduce-scatter and gather, ring allreduce)"
                : "in-process, through a root (sums in replica order)";
    }
}
