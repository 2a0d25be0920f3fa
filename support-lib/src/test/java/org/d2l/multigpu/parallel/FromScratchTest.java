package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FromScratchTest {

    private NDManager manager;

    @BeforeEach
    void setUp() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    private static List<Device> cpus(int k) {
        return Collections.nCopies(k, Device.cpu());
    }

    @Test
    void allreduceLeavesTheSumInEveryCopy() {
        NDArray a = manager.create(new float[] {1, 2});
        NDArray b = manager.create(new float[] {10, 20});
        NDArray c = manager.create(new float[] {100, 200});
        FromScratch.allreduce(List.of(a, b, c));
        for (NDArray x : List.of(a, b, c)) {
            assertArrayEquals(new float[] {111, 222}, x.toFloatArray());
        }
    }

    @Test
    void getParamsMakesIndependentCopiesWithGradients() {
        List<NDArray> params = List.of(manager.ones(new Shape(2)));
        List<NDArray> copy = FromScratch.getParams(params, Device.cpu(), manager);
        copy.get(0).addi(1);
        assertArrayEquals(new float[] {1, 1}, params.get(0).toFloatArray());
        assertTrue(copy.get(0).hasGradient());
    }

    @Test
    void splitBatchGivesUnevenShardsThatDifferByAtMostOne() {
        NDArray x = manager.arange(14f).reshape(7, 2);
        NDArray y = manager.arange(7f);
        FromScratch.Shards s = FromScratch.splitBatch(x, y, cpus(2));
        assertEquals(new Shape(4, 2), s.x().get(0).getShape());
        assertEquals(new Shape(3, 2), s.x().get(1).getShape());
        assertArrayEquals(new float[] {4, 5, 6}, s.y().get(1).toFloatArray());
    }

    @Test
    void splitBatchRejectsFewerExamplesThanDevices() {
        NDArray x = manager.zeros(new Shape(3, 2));
        NDArray y = manager.zeros(new Shape(3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FromScratch.splitBatch(x, y, cpus(4)));
        assertTrue(e.getMessage().contains("batch size of at least 4"), e.getMessage());
    }

    @Test
    void trainBatchOnTwoReplicasMatchesOneReplicaAndKeepsCopiesEqual() {
        manager.getEngine().setRandomSeed(3);
        List<NDArray> params = LeNet.initParams(manager);
        NDArray x = manager.randomUniform(0, 1, new Shape(8, 1, 28, 28));
        NDArray y = manager.create(new float[] {0, 1, 2, 3, 4, 5, 6, 7});
        Loss loss = Loss.softmaxCrossEntropyLoss();
        List<List<NDArray>> one = List.of(FromScratch.getParams(params, Device.cpu(), manager));
        List<List<NDArray>> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(FromScratch.getParams(params, Device.cpu(), manager));
        }
        for (int step = 0; step < 3; step++) {
            FromScratch.trainBatch(x, y, one, cpus(1), 0.5f, loss, LeNet::lenet);
            FromScratch.trainBatch(x, y, two, cpus(2), 0.5f, loss, LeNet::lenet);
        }
        for (int j = 0; j < params.size(); j++) {
            assertArrayEquals(two.get(0).get(j).toFloatArray(), two.get(1).get(j).toFloatArray(), 0f);
            assertArrayEquals(one.get(0).get(j).toFloatArray(), two.get(0).get(j).toFloatArray(), 1e-5f);
        }
        // the copies moved away from the initial values
        assertTrue(one.get(0).get(0).sub(params.get(0)).abs().max().getFloat() > 0);
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
        FromScratch.allreduce(naive);
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
                FromScratch.ringAllreduce(ring);
                assertHoldTheSums(k, rows, ring);
            }
        }
    }

    @Test
    void ringAllreduceSendsTwoTimesKMinusOneOverKTimesNPerDevice() {
        int k = 4;
        List<NDArray> data = spread(k, 8); // N = 24, divisible by 4: 2 x 3/4 x 24 = 36 per device
        FromScratch.Traffic t = FromScratch.ringAllreduce(data);
        for (int i = 0; i < k; i++) {
            assertEquals(36, t.sent()[i], "device " + i);
            assertEquals(36, t.received()[i], "device " + i);
        }
        FromScratch.Traffic naive = FromScratch.allreduce(spread(k, 8));
        assertEquals(3 * 24, naive.received()[0]); // (k-1) x N into device 0
        assertEquals(3 * 24, naive.sent()[0]); // and as much back out
        assertEquals(24, naive.sent()[1]);
    }

    @Test
    void ringAllreduceTrafficWithUnevenChunksIsTwoNMinusTheTwoChunksADeviceNeverSends() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) {
                long n = rows * 3L;
                long[] c = FromScratch.chunkSizes(n, k);
                FromScratch.Traffic t = FromScratch.ringAllreduce(spread(k, rows));
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
        assertArrayEquals(new long[] {3, 3, 2, 2}, FromScratch.chunkSizes(10, 4));
        assertArrayEquals(new long[] {1, 1, 0}, FromScratch.chunkSizes(2, 3));
    }

    @Test
    void ringAllreduceRejectsArraysOfDifferentShapes() {
        List<NDArray> data = List.of(manager.zeros(new Shape(3)), manager.zeros(new Shape(4)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FromScratch.ringAllreduce(data));
        assertTrue(e.getMessage().contains("same shape"), e.getMessage());
    }

    /** Device i's shard of {@code data.get(i)} for every device: the buffers a reduce-scatter fills. */
    private static List<NDArray> shardsOf(List<NDArray> data) {
        List<NDArray> shards = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            shards.add(FromScratch.shard(data.get(i), data.size(), i));
        }
        return shards;
    }

    @Test
    void reduceScatterThenAllGatherEqualsAllreduceForOneToFiveDevicesAndOddSizes() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) { // 3, 9 and 21 elements: uneven and empty chunks
                List<NDArray> data = spread(k, rows);
                List<NDArray> shards = shardsOf(data);
                FromScratch.reduceScatter(data, shards);
                FromScratch.allGather(shards, data);
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
        FromScratch.allreduce(sum);
        List<NDArray> shards = shardsOf(data);
        FromScratch.reduceScatter(data, shards);
        for (int i = 0; i < k; i++) {
            assertArrayEquals(FromScratch.shard(sum.get(0), k, i).toFloatArray(), shards.get(i).toFloatArray(), 1e-4f);
        }
        assertArrayEquals(before, data.get(1).toFloatArray(), 0f);
    }

    @Test
    void reduceScatterAndAllGatherEachSendKMinusOneChunksPerDeviceAndTogetherWhatTheRingSends() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7, 8}) {
                long n = rows * 3L;
                long[] c = FromScratch.chunkSizes(n, k);
                List<NDArray> data = spread(k, rows);
                List<NDArray> shards = shardsOf(data);
                FromScratch.Traffic rs = FromScratch.reduceScatter(data, shards);
                FromScratch.Traffic ag = FromScratch.allGather(shards, data);
                FromScratch.Traffic ring = FromScratch.ringAllreduce(spread(k, rows));
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
        assertArrayEquals(new float[] {0, 1, 2}, FromScratch.shard(a, 4, 0).toFloatArray());
        assertArrayEquals(new float[] {3, 4, 5}, FromScratch.shard(a, 4, 1).toFloatArray());
        assertArrayEquals(new float[] {8, 9}, FromScratch.shard(a, 4, 3).toFloatArray());
        assertEquals(0, FromScratch.shard(manager.arange(2f), 3, 2).size());
    }

    @Test
    void reduceScatterRejectsAShardOfTheWrongSize() {
        List<NDArray> data = spread(2, 3); // 9 elements: chunks of 5 and 4
        List<NDArray> shards = List.of(manager.zeros(new Shape(4)), manager.zeros(new Shape(4)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FromScratch.reduceScatter(data, shards));
        assertTrue(e.getMessage().contains("shard 0 has 4 elements but chunk 0"), e.getMessage());
    }

    @Test
    void partitionGivesTheLargestTensorsFirstToTheSmallestShare() {
        // LeNet's tensors: W1, b1, W2, b2, W3, b3, W4, b4
        long[] lenet = {180, 20, 25_000, 50, 102_400, 128, 1_280, 10};
        FromScratch.Partition two = FromScratch.partition(lenet, 2);
        assertArrayEquals(new int[] {1, 1, 1, 1, 0, 1, 1, 1}, two.owner());
        assertArrayEquals(new long[] {102_400, 26_668}, two.share());
        assertEquals(List.of(4), two.owned(0));
        FromScratch.Partition one = FromScratch.partition(lenet, 1);
        assertArrayEquals(new long[] {129_068}, one.share());
        // equal sizes go round the devices in their original order
        assertArrayEquals(new int[] {0, 1, 2, 0}, FromScratch.partition(new long[] {5, 5, 5, 5}, 3).owner());
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
                FromScratch.Partition p = FromScratch.partition(sizes, k);
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
