package org.d2l.multigpu.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class RingScheduleTest {

    /** k ranks' arrays of n random floats (spread over many magnitudes, so that the order of sums shows). */
    private static float[][] data(int k, int n, long seed) {
        Random rnd = new Random(seed);
        float[][] d = new float[k][n];
        for (float[] row : d) {
            for (int j = 0; j < n; j++) {
                row[j] = (float) (rnd.nextGaussian() * Math.pow(10, rnd.nextInt(7) - 3));
            }
        }
        return d;
    }

    /** Each rank's array after a ring allreduce that follows only the schedule, one message per rank and step. */
    private static float[][] simulate(RingSchedule ring, float[][] input, boolean reduce, boolean gather) {
        int k = ring.ranks();
        float[][] d = new float[k][];
        for (int r = 0; r < k; r++) {
            d[r] = input[r].clone();
        }
        for (int phase = 0; phase < 2; phase++) {
            if ((phase == 0 && !reduce) || (phase == 1 && !gather)) {
                continue;
            }
            for (int s = 0; s < ring.steps(); s++) {
                float[][] messages = new float[k][];
                for (int r = 0; r < k; r++) { // every rank sends at once: copy the messages first
                    int c = phase == 0 ? ring.reduceScatterSend(r, s) : ring.allGatherSend(r, s);
                    messages[r] = Arrays.copyOfRange(d[r], (int) ring.chunkStart(c), (int) ring.chunkEnd(c));
                }
                for (int r = 0; r < k; r++) {
                    int c = phase == 0 ? ring.reduceScatterReceive(r, s) : ring.allGatherReceive(r, s);
                    float[] m = messages[ring.previous(r)];
                    assertEquals(ring.chunkSize(c), m.length, "rank " + r + " receives the chunk its previous rank sent");
                    for (int j = 0; j < m.length; j++) {
                        int at = (int) ring.chunkStart(c) + j;
                        d[r][at] = phase == 0 ? d[r][at] + m[j] : m[j];
                    }
                }
            }
        }
        return d;
    }

    @Test
    void chunksAreNOverKWithTheFirstNModKOneLongerAsInTheInProcessRing() {
        assertArrayEquals(new long[] {3, 3, 2, 2}, RingSchedule.chunkSizes(10, 4));
        for (int k = 1; k <= 6; k++) {
            for (long n : new long[] {0, 1, 5, 10, 61_706}) {
                long[] sizes = RingSchedule.chunkSizes(n, k);
                assertEquals(n, Arrays.stream(sizes).sum(), "n=" + n + ", k=" + k);
                for (int c = 0; c < k; c++) {
                    assertEquals(n / k + (c < n % k ? 1 : 0), sizes[c], "n=" + n + ", k=" + k + ", chunk " + c);
                }
                RingSchedule ring = RingSchedule.allreduce(n, k);
                assertEquals(0, ring.chunkStart(0));
                assertEquals(n, ring.chunkEnd(k - 1));
            }
        }
    }

    @Test
    void aRingThatFollowsTheScheduleGivesTheInProcessRingsSumsBitForBit() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            for (int k = 1; k <= 5; k++) {
                for (int n : new int[] {1, 3, 10, 1001}) {
                    float[][] input = data(k, n, 31L * k + n);
                    float[][] viaSchedule = simulate(RingSchedule.allreduce(n, k), input, true, true);
                    List<NDArray> arrays = new ArrayList<>();
                    for (float[] row : input) {
                        arrays.add(manager.create(row));
                    }
                    Traffic traffic = Ring.allreduce(arrays);
                    RingSchedule ring = RingSchedule.allreduce(n, k);
                    for (int r = 0; r < k; r++) {
                        String where = "k=" + k + ", n=" + n + ", rank " + r;
                        assertArrayEquals(arrays.get(r).toFloatArray(), viaSchedule[r], where); // exact: same order of sums
                        assertEquals(traffic.sent()[r], ring.elementsSent(r), where);
                        assertEquals(traffic.received()[r], ring.elementsReceived(r), where);
                    }
                }
            }
        }
    }

    @Test
    void afterTheReduceScatterRankRHoldsTheSumOfChunkRPlusOne() {
        RingSchedule ring = RingSchedule.allreduce(10, 4);
        float[][] input = data(4, 10, 7);
        float[][] d = simulate(ring, input, true, false);
        for (int r = 0; r < 4; r++) {
            int c = ring.reducedChunk(r);
            assertEquals((r + 1) % 4, c);
            for (long j = ring.chunkStart(c); j < ring.chunkEnd(c); j++) {
                double sum = 0;
                for (float[] row : input) {
                    sum += row[(int) j];
                }
                assertEquals(sum, d[r][(int) j], 1e-5 * Math.abs(sum) + 1e-6, "rank " + r + ", element " + j);
            }
        }
    }

    @Test
    void theOwnChunksScheduleIsTheInProcessReduceScatterAndAllGather() {
        Djl.setup();
        try (NDManager manager = NDManager.newBaseManager()) {
            for (int k = 2; k <= 4; k++) {
                int n = 11;
                RingSchedule ring = RingSchedule.ownChunks(n, k);
                float[][] input = data(k, n, k);
                float[][] reduced = simulate(ring, input, true, false);
                List<NDArray> arrays = new ArrayList<>();
                List<NDArray> shards = new ArrayList<>();
                for (int r = 0; r < k; r++) {
                    arrays.add(manager.create(input[r]));
                    shards.add(manager.zeros(new Shape(ring.chunkSize(r))));
                }
                Ring.reduceScatter(arrays, shards);
                for (int r = 0; r < k; r++) {
                    assertEquals(r, ring.reducedChunk(r));
                    float[] mine = Arrays.copyOfRange(reduced[r], (int) ring.chunkStart(r), (int) ring.chunkEnd(r));
                    assertArrayEquals(shards.get(r).toFloatArray(), mine, "k=" + k + ", rank " + r);
                }
                // all-gather alone: rank r starts with only chunk r filled in
                float[][] own = new float[k][n];
                for (int r = 0; r < k; r++) {
                    System.arraycopy(input[r], (int) ring.chunkStart(r), own[r], (int) ring.chunkStart(r), (int) ring.chunkSize(r));
                }
                float[][] gathered = simulate(ring, own, false, true);
                for (int r = 0; r < k; r++) {
                    for (int c = 0; c < k; c++) {
                        for (long j = ring.chunkStart(c); j < ring.chunkEnd(c); j++) {
                            assertEquals(input[c][(int) j], gathered[r][(int) j], "k=" + k + ", rank " + r + " chunk " + c);
                        }
                    }
                }
            }
        }
    }

    @Test
    void withEvenChunksEveryRankSendsAndReceivesTwoTimesKMinusOneOverKOfTheElements() {
        for (int k = 1; k <= 8; k++) {
            long n = 840L * 1000; // divisible by 1..8
            RingSchedule ring = RingSchedule.allreduce(n, k);
            for (int r = 0; r < k; r++) {
                assertEquals(2L * (k - 1) * n / k, ring.elementsSent(r));
                assertEquals(2L * (k - 1) * n / k, ring.elementsReceived(r));
            }
        }
    }

    @Test
    void twoRanksExchangeTheOtherHalfInEachPhase() {
        RingSchedule ring = RingSchedule.allreduce(5, 2); // chunks 3, 2
        assertEquals(1, ring.steps());
        assertEquals(0, ring.reduceScatterSend(0, 0));
        assertEquals(1, ring.reduceScatterSend(1, 0));
        assertEquals(1, ring.reduceScatterReceive(0, 0));
        assertEquals(1, ring.allGatherSend(0, 0));
        assertEquals(0, ring.allGatherReceive(0, 0));
        assertEquals(5, ring.elementsSent(0)); // 3 then 2
        assertTrue(ring.toString().contains("[3, 2]"), ring.toString());
    }

    @Test
    void ranksStepsAndChunksOutsideTheRingAreRefusedWithTheirRange() {
        RingSchedule ring = RingSchedule.allreduce(10, 3);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.next(3)).getMessage().contains("0 to 2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.reduceScatterSend(0, 2)).getMessage()
                .contains("0 to 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.chunkSize(-1)).getMessage().contains("Chunk -1"));
        assertThrows(IllegalArgumentException.class, () -> RingSchedule.allreduce(10, 0));
        assertThrows(IllegalArgumentException.class, () -> RingSchedule.allreduce(-1, 2));
        assertEquals(0, RingSchedule.allreduce(10, 1).elementsSent(0), "a ring of one rank sends nothing");
    }
}
