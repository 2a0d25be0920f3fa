package org.d2l.multigpu.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.d2l.multigpu.compression.CompressionHook;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.runtime.WithCpuManager;
import org.junit.jupiter.api.Test;

/** Buckets through the gradient hooks: what the plain and the compression hook sum, and the traffic they report. */
class GradientBucketTest extends WithCpuManager {

    private static final Shape[] SHAPES = {new Shape(3, 4), new Shape(5), new Shape(2, 2, 3)};

    /** Entry j of every replica, k replicas, random values from {@code seed}. */
    private List<List<NDArray>> entries(int k, long seed) {
        Random r = new Random(seed);
        List<List<NDArray>> all = new ArrayList<>();
        for (Shape shape : SHAPES) {
            List<NDArray> perReplica = new ArrayList<>();
            for (int i = 0; i < k; i++) {
                float[] v = new float[(int) shape.size()];
                for (int e = 0; e < v.length; e++) {
                    v[e] = (float) r.nextGaussian();
                }
                perReplica.add(manager.create(v, shape));
            }
            all.add(perReplica);
        }
        return all;
    }

    private static float[][] values(List<NDArray> arrays) {
        return arrays.stream().map(NDArray::toFloatArray).toArray(float[][]::new);
    }

    @Test
    void thePlainHookSumsTheBucketAsOneAllreduceOfEachReplicasEntriesFlattenedAndGivesEveryEntryItsShapeBack() {
        for (Collective wire : List.of(Collective.direct(), Collective.ring())) {
            List<List<NDArray>> bucketed = entries(3, 7);
            GradientBucket bucket = new GradientBucket();
            List<NDArray> flat = new ArrayList<>();
            for (int i = 0; i < 3; i++) { // the reference: each replica's entries laid end to end by hand
                List<Float> v = new ArrayList<>();
                for (int j = 0; j < SHAPES.length; j++) {
                    for (float x : bucketed.get(j).get(i).toFloatArray()) {
                        v.add(x);
                    }
                }
                float[] a = new float[v.size()];
                for (int e = 0; e < a.length; e++) {
                    a[e] = v.get(e);
                }
                flat.add(manager.create(a));
            }
            for (int j = 0; j < SHAPES.length; j++) {
                bucket.addGradient("w" + j, bucketed.get(j));
            }
            Traffic t = GradientHook.allreduce(wire).allreduce(bucket);
            Traffic once = wire.allreduce("flat", flat);
            assertArrayEquals(once.sentBytes(), t.sentBytes(), wire.describe());
            assertArrayEquals(once.receivedBytes(), t.receivedBytes(), wire.describe());
            for (int i = 0; i < 3; i++) {
                float[] sum = flat.get(i).toFloatArray();
                int at = 0;
                for (int j = 0; j < SHAPES.length; j++) {
                    NDArray got = bucketed.get(j).get(i);
                    assertEquals(SHAPES[j], got.getShape());
                    float[] expected = java.util.Arrays.copyOfRange(sum, at, at + (int) SHAPES[j].size());
                    assertArrayEquals(expected, got.toFloatArray(), 0f, wire.describe() + ", entry " + j + ", replica " + i);
                    at += expected.length;
                }
            }
        }
    }

    @Test
    void theCompressionHookCompressesEachGradientAsAloneAndSumsStatisticsExactly() {
        List<List<NDArray>> bucketed = entries(2, 11);
        List<List<NDArray>> alone = entries(2, 11);
        float[][] statistics = values(bucketed.get(1));
        CompressionHook hook = CompressionHook.of(Compressor.oneBit(true), Collective.direct());
        CompressionHook reference = CompressionHook.of(Compressor.oneBit(true), Collective.direct());
        GradientBucket bucket = new GradientBucket().addGradient("w0", bucketed.get(0))
                .addExact("running mean", bucketed.get(1)).addGradient("w2", bucketed.get(2));
        hook.allreduce(bucket);
        for (int j : new int[] {0, 2}) {
            reference.allreduce("w" + j, alone.get(j));
            for (int i = 0; i < 2; i++) {
                assertArrayEquals(alone.get(j).get(i).toFloatArray(), bucketed.get(j).get(i).toFloatArray(), 0f,
                        "gradient " + j + ", replica " + i);
            }
        }
        for (int i = 0; i < 2; i++) {
            float[] sum = bucketed.get(1).get(i).toFloatArray();
            for (int e = 0; e < sum.length; e++) {
                assertEquals(statistics[0][e] + statistics[1][e], sum[e], 0f, "statistic element " + e);
            }
        }
    }

    @Test
    void aBucketRefusesEntriesForAnotherNumberOfReplicasAndAnEmptyBucketHasNothingToSend() {
        GradientBucket bucket = new GradientBucket().addGradient("w", entries(2, 1).get(0));
        String why = assertThrows(IllegalArgumentException.class,
                () -> bucket.addGradient("v", entries(3, 1).get(0))).getMessage();
        assertTrue(why.contains("3 replicas") && why.contains("2"), why);
        assertThrows(IllegalStateException.class,
                () -> GradientHook.allreduce(Collective.direct()).allreduce(new GradientBucket()));
    }
}
