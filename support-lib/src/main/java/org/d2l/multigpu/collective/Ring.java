package org.d2l.multigpu.collective;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.OnDevice;

/**
 * The ring algorithms over arrays that live on k devices (one array per device, device i's neighbour
 * device i+1 mod k): allreduce and its two halves, reduce-scatter and all-gather, each returning the
 * elements every device sent and received; the chunks they cut arrays into.
 */
public final class Ring {

    private Ring() {}

    /**
     * Ring allreduce: every array of {@code data} (one per device, device i's neighbour is device
     * i+1 mod k) is cut into k chunks; in k-1 reduce-scatter steps each device sends one chunk to
     * its neighbour, which adds it to its own, until device i holds the full sum of chunk i+1; in
     * k-1 all-gather steps the summed chunks travel once more round the ring. Afterwards every
     * array holds the sum, as with the direct allreduce ({@link Collective#direct()}); returns the
     * elements each device sent and received: 2N - c[i+1] - c[i+2] for device i (chunk sizes c as in {@link #chunkSizes}, indices
     * mod k), which is 2(k-1)/k x N when k divides N.
     */
    public static Traffic allreduce(List<NDArray> data) {
        int k = checkSameShape("Ring.allreduce", data);
        Shape shape = data.get(0).getShape();
        RingSchedule ring = RingSchedule.allreduce(shape.size(), k);
        long[] sent = new long[k];
        long[] received = new long[k];
        try (NDManager scratch = data.get(0).getManager().newSubManager()) {
            List<NDArray> flat = workingCopies(data, scratch);
            // Reduce-scatter: at step s device i sends chunk (i - s) mod k; its neighbour adds it in.
            for (int s = 0; s < k - 1; s++) {
                ringStep(flat, s, false, ring, sent, received, scratch);
            }
            // All-gather: at step s device i sends its summed chunk (i + 1 - s) mod k; its neighbour keeps it.
            for (int s = 0; s < k - 1; s++) {
                ringStep(flat, s, true, ring, sent, received, scratch);
            }
            for (int i = 0; i < k; i++) {
                OnDevice.copyInto(flat.get(i).reshape(shape), data.get(i));
            }
        }
        return Traffic.elements(sent, received, data.get(0).getDataType().getNumOfBytes());
    }

    /**
     * The sizes of the k chunks into which ring allreduce cuts {@code n} elements: n / k each, the
     * first n mod k one element more (so 10 elements on 4 devices give 3, 3, 2, 2).
     */
    public static long[] chunkSizes(long n, int k) {
        return RingSchedule.chunkSizes(n, k);
    }

    /**
     * Ring reduce-scatter, the first half of {@link #allreduce}: every array of {@code data} (one
     * per device, all of one shape, left unchanged) is cut into k chunks ({@link #chunkSizes}), and
     * {@code shards.get(i)} (on device i, of chunk i's size) receives the sum over all devices of
     * chunk i. In k-1 steps device i sends every chunk but its own once: N - c[i] elements (c as in
     * {@link #chunkSizes}), (k-1)/k x N when k divides N; returns what each device sent and received.
     */
    public static Traffic reduceScatter(List<NDArray> data, List<NDArray> shards) {
        long[] starts = checkedStarts("Ring.reduceScatter", data, shards);
        int k = data.size();
        long[] sent = new long[k];
        long[] received = new long[k];
        try (NDManager scratch = data.get(0).getManager().newSubManager()) {
            List<NDArray> flat = workingCopies(data, scratch);
            RingSchedule ring = RingSchedule.ownChunks(starts[k], k);
            for (int s = 0; s < k - 1; s++) {
                ringStep(flat, s, false, ring, sent, received, scratch); // device i ends with chunk i
            }
            for (int i = 0; i < k; i++) {
                if (starts[i + 1] > starts[i]) {
                    NDArray mine = flat.get(i).get(new NDIndex("{}:{}", starts[i], starts[i + 1]));
                    OnDevice.copyInto(mine.reshape(shards.get(i).getShape()), shards.get(i));
                }
            }
        }
        return Traffic.elements(sent, received, data.get(0).getDataType().getNumOfBytes());
    }

    /**
     * Ring all-gather, the second half of {@link #allreduce}: {@code shards.get(i)} (device i's
     * chunk i, sized as {@link #chunkSizes} says) is copied into chunk i of every array of {@code
     * data} (one per device, all of one shape), which afterwards all hold the same values. In k-1
     * steps device i passes on every chunk but chunk i+1: N - c[i+1] elements, (k-1)/k x N when k
     * divides N; returns what each device sent and received.
     */
    public static Traffic allGather(List<NDArray> shards, List<NDArray> data) {
        long[] starts = checkedStarts("Ring.allGather", data, shards);
        int k = data.size();
        long[] sent = new long[k];
        long[] received = new long[k];
        try (NDManager scratch = data.get(0).getManager().newSubManager()) {
            List<NDArray> flat = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                NDArray buffer = scratch.zeros(new Shape(starts[k]), data.get(i).getDataType(), data.get(i).getDevice());
                if (starts[i + 1] > starts[i]) {
                    NDArray own = shards.get(i).reshape(-1).toDevice(buffer.getDevice(), false);
                    own.attach(scratch);
                    buffer.set(new NDIndex("{}:{}", starts[i], starts[i + 1]), own);
                }
                flat.add(buffer);
            }
            RingSchedule ring = RingSchedule.ownChunks(starts[k], k);
            for (int s = 0; s < k - 1; s++) {
                ringStep(flat, s, true, ring, sent, received, scratch); // device i starts by sending chunk i
            }
            for (int i = 0; i < k; i++) {
                OnDevice.copyInto(flat.get(i).reshape(data.get(i).getShape()), data.get(i));
            }
        }
        return Traffic.elements(sent, received, data.get(0).getDataType().getNumOfBytes());
    }

    /**
     * Chunk {@code i} of {@code k} of {@code data} read as one flat array: a new 1-D array on the
     * same device holding the elements device i owns after {@link #reduceScatter}.
     */
    public static NDArray shard(NDArray data, int k, int i) {
        long[] starts = chunkStarts(data.size(), k);
        if (i < 0 || i >= k) {
            throw new IllegalArgumentException("shard " + i + " of " + k + " does not exist: use 0 to " + (k - 1) + ".");
        }
        try (NDArray flat = data.reshape(-1)) {
            return flat.get(new NDIndex("{}:{}", starts[i], starts[i + 1])).duplicate();
        }
    }

    /** Each device's own flat working copy of its array, freed with {@code scratch}. */
    private static List<NDArray> workingCopies(List<NDArray> data, NDManager scratch) {
        List<NDArray> flat = new ArrayList<>(data.size());
        for (NDArray a : data) {
            NDArray view = a.reshape(-1);
            view.attach(scratch);
            flat.add(view.duplicate());
        }
        return flat;
    }

    /** The start of each of the k chunks of {@code n} elements, and n at the end (k + 1 values). */
    private static long[] chunkStarts(long n, int k) {
        RingSchedule ring = RingSchedule.allreduce(n, k);
        long[] starts = new long[k + 1];
        for (int c = 0; c < k; c++) {
            starts[c + 1] = ring.chunkEnd(c);
        }
        return starts;
    }

    /** The number of devices, after checking that every array has the first one's shape. */
    private static int checkSameShape(String op, List<NDArray> data) {
        if (data == null || data.isEmpty()) {
            throw new IllegalArgumentException(op + " needs at least one array.");
        }
        Shape shape = data.get(0).getShape();
        for (int i = 1; i < data.size(); i++) {
            if (!data.get(i).getShape().equals(shape)) {
                throw new IllegalArgumentException(op + ": array " + i + " has shape " + data.get(i).getShape()
                        + " but array 0 has " + shape + "; every device must hold the same shape.");
            }
        }
        return data.size();
    }

    /** The chunk starts of {@code data}'s arrays, after checking them and that shard i has chunk i's size. */
    private static long[] checkedStarts(String op, List<NDArray> data, List<NDArray> shards) {
        int k = checkSameShape(op, data);
        long[] starts = chunkStarts(data.get(0).size(), k);
        checkShards(op, shards, starts);
        return starts;
    }

    /** Checks that there is one shard per device and that shard i has chunk i's size. */
    private static void checkShards(String op, List<NDArray> shards, long[] starts) {
        int k = starts.length - 1;
        if (shards == null || shards.size() != k) {
            throw new IllegalArgumentException(op + " needs one shard per device: " + k + " devices but "
                    + (shards == null ? 0 : shards.size()) + " shards.");
        }
        for (int i = 0; i < k; i++) {
            long want = starts[i + 1] - starts[i];
            if (shards.get(i).size() != want) {
                throw new IllegalArgumentException(op + ": shard " + i + " has " + shards.get(i).size()
                        + " elements but chunk " + i + " of " + starts[k] + " over " + k + " devices has " + want
                        + " (Ring.chunkSizes); make it with Ring.shard(data, k, i).");
            }
        }
    }

    /**
     * One ring step of {@code ring}'s schedule: every device i sends one chunk to device i+1 at the
     * same time (messages are copied first, then delivered), which adds it to its own chunk or, when
     * {@code gather}, keeps it.
     */
    private static void ringStep(List<NDArray> flat, int s, boolean gather, RingSchedule ring,
            long[] sent, long[] received, NDManager scratch) {
        int k = flat.size();
        NDArray[] messages = new NDArray[k];
        int[] chunks = new int[k];
        for (int i = 0; i < k; i++) {
            int c = gather ? ring.allGatherSend(i, s) : ring.reduceScatterSend(i, s);
            chunks[i] = c;
            if (ring.chunkSize(c) > 0) {
                int to = ring.next(i);
                NDArray piece = flat.get(i).get(new NDIndex("{}:{}", ring.chunkStart(c), ring.chunkEnd(c)));
                messages[i] = OnDevice.copy(piece, flat.get(to).getDevice(), scratch); // the wire
                sent[i] += messages[i].size();
                received[to] += messages[i].size();
            }
        }
        for (int i = 0; i < k; i++) {
            if (messages[i] == null) {
                continue; // an empty chunk (fewer elements than devices): nothing to send
            }
            int c = chunks[i];
            NDArray dst = flat.get(ring.next(i));
            NDIndex range = new NDIndex("{}:{}", ring.chunkStart(c), ring.chunkEnd(c));
            dst.set(range, gather ? messages[i] : dst.get(range).add(messages[i]));
        }
    }

}
