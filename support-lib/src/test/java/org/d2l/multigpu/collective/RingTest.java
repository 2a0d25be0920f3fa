package org.d2l.multigpu.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.WithCpuManager;
import org.junit.jupiter.api.Test;

class RingTest extends WithCpuManager {

    private static List<Device> cpus(int k) {
        return Collections.nCopies(k, Device.cpu());
    }

    /** k arrays of shape (rows, 3) with distinct values, on the CPU. */
    private List<NDArray> spread(int k, int rows) {
        List<NDArray> data = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            data.add(manager.arange(rows * 3f).reshape(rows, 3).mul(i + 1).add(0.25f * i));
        }
        return data;
    }

    /** Asserts that each of the k arrays {@code got}, made from {@code spread(k, rows)}, holds the naive allreduce's sums. */
    private void assertHoldTheSums(int k, int rows, List<NDArray> got) {
        List<NDArray> naive = spread(k, rows);
        Collective.direct().allreduce("data", naive);
        for (int i = 0; i < k; i++) {
            assertEquals(new Shape(rows, 3), got.get(i).getShape());
            assertArrayEquals(naive.get(0).toFloatArray(), got.get(i).toFloatArray(), 1e-4f,
                    "k=" + k + ", " + rows * 3 + " elements, device " + i);
        }
    }

    @Test
    void ringAllreduceEqualsTheNaiveAllreduceForOneToFiveDevicesAndOddSizes() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) { // 3, 9 and 21 elements: chunks of unequal size
                List<NDArray> ring = spread(k, rows);
                Ring.allreduce(ring);
                assertHoldTheSums(k, rows, ring);
            }
        }
    }

    @Test
    void ringAllreduceSendsTwoTimesKMinusOneOverKTimesNPerDevice() {
        int k = 4;
        List<NDArray> data = spread(k, 8); // N = 24, divisible by 4: 2 x 3/4 x 24 = 36 per device
        Traffic t = Ring.allreduce(data);
        for (int i = 0; i < k; i++) {
            assertEquals(36, t.sent()[i], "device " + i);
            assertEquals(36, t.received()[i], "device " + i);
        }
        Traffic naive = Collective.direct().allreduce("data", spread(k, 8));
        assertEquals(3 * 24, naive.received()[0]); // (k-1) x N into device 0
        assertEquals(3 * 24, naive.sent()[0]); // and as much back out
        assertEquals(24, naive.sent()[1]);
    }

    @Test
    void ringAllreduceTrafficWithUnevenChunksIsTwoNMinusTheTwoChunksADeviceNeverSends() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) {
                long n = rows * 3L;
                long[] c = Ring.chunkSizes(n, k);
                Traffic t = Ring.allreduce(spread(k, rows));
                long total = 0;
                for (int i = 0; i < k; i++) {
                    long expected = 2 * n - c[(i + 1) % k] - c[(i + 2) % k];
                    assertEquals(expected, t.sent()[i], "k=" + k + ", N=" + n + ", device " + i);
                    total += t.sent()[i];
                }
                assertEquals(2L * (k - 1) * n, total, "k=" + k + ", N=" + n);
                assertEquals(total, t.totalSent());
            }
        }
        assertArrayEquals(new long[] {3, 3, 2, 2}, Ring.chunkSizes(10, 4));
        assertArrayEquals(new long[] {1, 1, 0}, Ring.chunkSizes(2, 3));
    }

    @Test
    void ringAllreduceRejectsArraysOfDifferentShapes() {
        List<NDArray> data = List.of(manager.zeros(new Shape(3)), manager.zeros(new Shape(4)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Ring.allreduce(data));
        assertTrue(e.getMessage().contains("same shape"), e.getMessage());
    }

    /** Device i's shard of {@code data.get(i)} for every device: the buffers a reduce-scatter fills. */
    private static List<NDArray> shardsOf(List<NDArray> data) {
        List<NDArray> shards = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            shards.add(Ring.shard(data.get(i), data.size(), i));
        }
        return shards;
    }

    @Test
    void reduceScatterThenAllGatherEqualsAllreduceForOneToFiveDevicesAndOddSizes() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) { // 3, 9 and 21 elements: uneven and empty chunks
                List<NDArray> data = spread(k, rows);
                List<NDArray> shards = shardsOf(data);
                Ring.reduceScatter(data, shards);
                Ring.allGather(shards, data);
                assertHoldTheSums(k, rows, data);
            }
        }
    }

    @Test
    void reduceScatterLeavesTheSumOfChunkIOnDeviceIAndTheInputsUnchanged() {
        int k = 3;
        List<NDArray> data = spread(k, 7); // 21 elements: chunks of 7
        float[] before = data.get(1).toFloatArray();
        List<NDArray> sum = spread(k, 7);
        Collective.direct().allreduce("data", sum);
        List<NDArray> shards = shardsOf(data);
        Ring.reduceScatter(data, shards);
        for (int i = 0; i < k; i++) {
            assertArrayEquals(Ring.shard(sum.get(0), k, i).toFloatArray(), shards.get(i).toFloatArray(), 1e-4f);
        }
        assertArrayEquals(before, data.get(1).toFloatArray(), 0f);
    }

    @Test
    void reduceScatterAndAllGatherEachSendKMinusOneChunksPerDeviceAndTogetherWhatTheRingSends() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7, 8}) {
                long n = rows * 3L;
                long[] c = Ring.chunkSizes(n, k);
                List<NDArray> data = spread(k, rows);
                List<NDArray> shards = shardsOf(data);
                Traffic rs = Ring.reduceScatter(data, shards);
                Traffic ag = Ring.allGather(shards, data);
                Traffic ring = Ring.allreduce(spread(k, rows));
                for (int i = 0; i < k; i++) {
                    String where = "k=" + k + ", N=" + n + ", device " + i;
                    assertEquals(n - c[i], rs.sent()[i], where);
                    assertEquals(n - c[Math.floorMod(i - 1, k)], rs.received()[i], where);
                    assertEquals(n - c[(i + 1) % k], ag.sent()[i], where);
                    assertEquals(n - c[i], ag.received()[i], where);
                }
                assertEquals((k - 1) * n, rs.totalSent());
                assertEquals((k - 1) * n, ag.totalSent());
                assertEquals(ring.totalSent(), rs.totalSent() + ag.totalSent());
            }
        }
    }

    @Test
    void shardsOfAnArrayPutTogetherAreTheArrayReadFlat() {
        NDArray a = manager.arange(10f).reshape(2, 5);
        assertArrayEquals(new float[] {0, 1, 2}, Ring.shard(a, 4, 0).toFloatArray());
        assertArrayEquals(new float[] {3, 4, 5}, Ring.shard(a, 4, 1).toFloatArray());
        assertArrayEquals(new float[] {8, 9}, Ring.shard(a, 4, 3).toFloatArray());
        assertEquals(0, Ring.shard(manager.arange(2f), 3, 2).size());
    }

    @Test
    void reduceScatterRejectsAShardOfTheWrongSize() {
        List<NDArray> data = spread(2, 3); // 9 elements: chunks of 5 and 4
        List<NDArray> shards = List.of(manager.zeros(new Shape(4)), manager.zeros(new Shape(4)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Ring.reduceScatter(data, shards));
        assertTrue(e.getMessage().contains("shard 0 has 4 elements but chunk 0"), e.getMessage());
    }

    @Test
    void partitionGivesTheLargestTensorsFirstToTheSmallestShare() {
        // LeNet's tensors: W1, b1, W2, b2, W3, b3, W4, b4
        long[] lenet = {180, 20, 25_000, 50, 102_400, 128, 1_280, 10};
        Partition two = Partition.of(lenet, 2);
        assertArrayEquals(new int[] {1, 1, 1, 1, 0, 1, 1, 1}, two.owner());
        assertArrayEquals(new long[] {102_400, 26_668}, two.share());
        assertEquals(List.of(4), two.owned(0));
        Partition one = Partition.of(lenet, 1);
        assertArrayEquals(new long[] {129_068}, one.share());
        // equal sizes go round the devices in their original order
        assertArrayEquals(new int[] {0, 1, 2, 0}, Partition.of(new long[] {5, 5, 5, 5}, 3).owner());
    }

    @Test
    void partitionIsBalancedWithinOneLargestTensorOfTheMean() {
        java.util.Random random = new java.util.Random(7);
        for (int trial = 0; trial < 200; trial++) {
            int tensors = 1 + random.nextInt(40);
            long[] sizes = new long[tensors];
            long total = 0;
            long largest = 0;
            for (int j = 0; j < tensors; j++) {
                sizes[j] = random.nextInt(3) == 0 ? random.nextInt(100_000) : random.nextInt(1_000);
                total += sizes[j];
                largest = Math.max(largest, sizes[j]);
            }
            for (int k = 1; k <= 8; k++) {
                Partition p = Partition.of(sizes, k);
                assertEquals(total, java.util.Arrays.stream(p.share()).sum());
                for (int j = 0; j < tensors; j++) {
                    assertTrue(p.owned(p.owner()[j]).contains(j));
                }
                double mean = (double) total / k;
                assertTrue(p.largestShare() <= mean + largest,
                        "k=" + k + ": largest share " + p.largestShare() + ", mean " + mean + ", largest tensor " + largest);
            }
        }
    }
}
