package org.d2l.multigpu.spark.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Ring;
import org.d2l.multigpu.collective.RingSchedule;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.compression.CompressionHook;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

/** The collective seam over the TCP ring: the same sums as the in-process collectives, and this rank's bytes. */
class TcpRingCollectiveTest {

    /** A list of k entries with only {@code rank}'s set, as a rank of the ring sees its replicas. */
    private static List<NDArray> mine(int k, int rank, NDArray a) {
        List<NDArray> slots = new ArrayList<>(Collections.nCopies(k, (NDArray) null));
        slots.set(rank, a);
        return slots;
    }

    @Test
    void allreduceReduceScatterAndAllGatherGiveTheInProcessResultsBitForBit() throws Exception {
        Djl.setup();
        int k = 3;
        int n = 1001;
        float[][] input = TcpRingTest.data(k, n, 11);
        float[][] summed = new float[k][];
        float[][] shard = new float[k][];
        float[][] gathered = new float[k][];
        long[][] bytes = new long[k][];
        TcpRingTest.onRing(k, ring -> {
            int r = ring.rank();
            Collective c = new TcpRingCollective(ring, n);
            try (NDManager m = NDManager.newBaseManager()) {
                NDArray a = m.create(input[r]);
                Traffic t = c.allreduce("w", mine(k, r, a));
                summed[r] = a.toFloatArray();
                NDArray b = m.create(input[r]);
                NDArray s = m.zeros(new ai.djl.ndarray.types.Shape(Ring.chunkSizes(n, k)[r]));
                Traffic rs = c.reduceScatter(mine(k, r, b), mine(k, r, s));
                shard[r] = s.toFloatArray();
                NDArray out = m.zeros(new ai.djl.ndarray.types.Shape(n));
                Traffic ag = c.allGather(mine(k, r, s), mine(k, r, out));
                gathered[r] = out.toFloatArray();
                bytes[r] = new long[] {t.sentBytes()[r], t.receivedBytes()[r], rs.sentBytes()[r], ag.sentBytes()[r]};
            }
        });
        try (NDManager m = NDManager.newBaseManager()) {
            List<NDArray> ring = new ArrayList<>();
            List<NDArray> data = new ArrayList<>();
            List<NDArray> shards = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                ring.add(m.create(input[r]));
                data.add(m.create(input[r]));
                shards.add(m.zeros(new ai.djl.ndarray.types.Shape(Ring.chunkSizes(n, k)[r])));
            }
            Ring.allreduce(ring);
            Ring.reduceScatter(data, shards);
            List<NDArray> gather = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                gather.add(m.zeros(new ai.djl.ndarray.types.Shape(n)));
            }
            Ring.allGather(shards, gather);
            RingSchedule schedule = RingSchedule.allreduce(n, k);
            long[] chunks = Ring.chunkSizes(n, k);
            for (int r = 0; r < k; r++) {
                assertArrayEquals(ring.get(r).toFloatArray(), summed[r], 0f, "allreduce, rank " + r);
                assertArrayEquals(shards.get(r).toFloatArray(), shard[r], 0f, "reduce-scatter, rank " + r);
                assertArrayEquals(gather.get(r).toFloatArray(), gathered[r], 0f, "all-gather, rank " + r);
                assertEquals(4 * schedule.elementsSent(r), bytes[r][0], "allreduce bytes sent, rank " + r);
                assertEquals(4 * schedule.elementsReceived(r), bytes[r][1], "allreduce bytes received, rank " + r);
                assertEquals(4 * (n - chunks[r]), bytes[r][2], "reduce-scatter: every chunk but its own, rank " + r);
                assertEquals(4 * (n - chunks[(r + 1) % k]), bytes[r][3], "all-gather: every chunk but the next rank's, rank " + r);
            }
        }
    }

    /**
     * A reduce to rank 1 over the ring leaves there what the in-process ring's reduce leaves, bit for bit, and the
     * other ranks' arrays as they were; a broadcast from rank 1 leaves its values on every rank, each rank sending
     * them on once but the one before the root, and receiving them once but the root.
     */
    @Test
    void reduceAndBroadcastOverTheRingGiveTheInProcessResults() throws Exception {
        Djl.setup();
        int k = 3;
        int n = 1001;
        int root = 1;
        int[] all = {0, 1, 2};
        float[][] input = TcpRingTest.data(k, n, 12);
        float[][] into = new float[k][];
        float[][] kept = new float[k][];
        float[][] broadcast = new float[k][];
        long[][] elements = new long[k][];
        TcpRingTest.onRing(k, ring -> {
            int r = ring.rank();
            Collective c = new TcpRingCollective(ring, n);
            try (NDManager m = NDManager.newBaseManager()) {
                NDArray a = m.create(input[r]);
                NDArray sum = m.zeros(new Shape(n));
                c.reduce("w", mine(k, r, a), all, sum, root);
                into[r] = sum.toFloatArray();
                kept[r] = a.toFloatArray();
                Traffic t = c.broadcast(a, root, mine(k, r, a));
                broadcast[r] = a.toFloatArray();
                elements[r] = new long[] {t.sent()[r], t.received()[r]};
            }
        });
        try (NDManager m = NDManager.newBaseManager()) {
            List<NDArray> data = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                data.add(m.create(input[r]));
            }
            NDArray sum = m.zeros(new Shape(n));
            Collective.ring().reduce("w", data, all, sum, root);
            assertArrayEquals(sum.toFloatArray(), into[root], 0f, "the root's sum");
            for (int r = 0; r < k; r++) {
                if (r != root) {
                    assertArrayEquals(new float[n], into[r], 0f, "rank " + r + "'s target, untouched");
                    assertArrayEquals(input[r], kept[r], 0f, "rank " + r + "'s array, untouched by the reduce");
                }
                assertArrayEquals(input[root], broadcast[r], 0f, "the root's values on rank " + r);
                assertEquals(r == (root + k - 1) % k ? 0 : n, elements[r][0], "elements sent by rank " + r);
                assertEquals(r == root ? 0 : n, elements[r][1], "elements received by rank " + r);
            }
        }
    }

    /**
     * Two steps of each compressor (so that residuals, thresholds and PowerSGD's Q carry over), on a 40 x 25
     * gradient per rank, rank r's scaled by 1 + r / 4 (so that threshold encoding's messages differ in
     * length): over the TCP ring, each rank's result is what the in-process {@link CompressionHook} over the
     * in-process ring gives every replica, bit for bit, and each rank sends and receives what the in-process
     * ring's traffic says, plus a 4-byte length in front of each of its k - 1 messages.
     */
    @Test
    void compressedAllreduceOverTheRingGivesTheInProcessResultsBitForBit() throws Exception {
        Djl.setup();
        int k = 3;
        Shape shape = new Shape(40, 25);
        int n = (int) shape.size();
        float[][][] input = {TcpRingTest.data(k, n, 5), TcpRingTest.data(k, n, 6)};
        for (float[][] step : input) {
            for (int r = 0; r < k; r++) {
                for (int j = 0; j < n; j++) {
                    step[r][j] *= 1 + r / 4f; // 3 sigma: about 0.3%, 2% and 5% of the values pass, each sent sparse
                }
            }
        }
        List<Supplier<Compressor>> schemes = List.of(() -> Compressor.oneBit(true), () -> Compressor.threshold(3, true),
                () -> Compressor.float16(false), () -> Compressor.powerSgd(2, 0, true));
        for (Supplier<Compressor> scheme : schemes) {
            float[][][] viaRing = new float[2][k][];
            long[][] sent = new long[2][k];
            long[][] received = new long[2][k];
            TcpRingTest.onRing(k, ring -> {
                int r = ring.rank();
                CompressionHook c = CompressionHook.of(scheme.get(), new TcpRingCollective(ring, n));
                try (NDManager m = NDManager.newBaseManager()) {
                    for (int step = 0; step < 2; step++) {
                        NDArray g = m.create(input[step][r], shape);
                        Traffic t = c.allreduce("w", mine(k, r, g));
                        sent[step][r] = t.sentBytes()[r];
                        received[step][r] = t.receivedBytes()[r];
                        viaRing[step][r] = g.toFloatArray();
                    }
                }
            });
            CompressionHook inProcess = CompressionHook.of(scheme.get(), Collective.ring());
            java.util.Set<Long> lengths = new java.util.HashSet<>();
            try (NDManager m = NDManager.newBaseManager()) {
                for (int step = 0; step < 2; step++) {
                    List<NDArray> data = new ArrayList<>();
                    for (int r = 0; r < k; r++) {
                        data.add(m.create(input[step][r], shape));
                    }
                    Traffic t = inProcess.allreduce("w", data);
                    for (int r = 0; r < k; r++) {
                        lengths.add(t.sentBytes()[r]);
                    }
                    String what = inProcess.describe() + ", step " + (step + 1);
                    for (int r = 0; r < k; r++) {
                        assertArrayEquals(data.get(r).toFloatArray(), viaRing[step][r], 0f, what + ", rank " + r);
                        long frames = inProcess.compressor().describe().startsWith("PowerSGD") ? 0 : 4L * (k - 1);
                        assertEquals(t.sentBytes()[r] + frames, sent[step][r], what + ", bytes sent by rank " + r);
                        assertEquals(t.receivedBytes()[r] + frames, received[step][r], what + ", bytes received by rank " + r);
                    }
                }
            }
            if (inProcess.compressor().describe().startsWith("threshold")) {
                assertEquals(6, lengths.size(), "each rank of each step sent another number of bytes: " + lengths);
            }
        }
    }
}
