package org.d2l.multigpu.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.runtime.WithCpuManager;
import org.junit.jupiter.api.Test;

/** What each compressor sends, what it keeps, and what its receivers add up. */
class CompressorTest extends WithCpuManager {

    private static final float EPS = Math.ulp(1f); // float32's machine epsilon, 2^-23


    /** {@code k} arrays of {@code shape} with normal values of standard deviation {@code scale}, from {@code seed}. */
    private List<NDArray> gradients(int k, Shape shape, double scale, long seed) {
        Random r = new Random(seed);
        List<NDArray> data = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            float[] v = new float[Math.toIntExact(shape.size())];
            for (int j = 0; j < v.length; j++) {
                v[j] = (float) (r.nextGaussian() * scale);
            }
            data.add(manager.create(v, shape));
        }
        return data;
    }

    private static float[][] values(List<NDArray> data) {
        return data.stream().map(NDArray::toFloatArray).toArray(float[][]::new);
    }

    @Test
    void thresholdEncodingsResidualKeepsEveryValueThatWasNotSent() {
        CompressionState state = new CompressionState();
        List<NDArray> data = gradients(2, new Shape(4000), 1e-3, 1);
        float[][] before = values(data);
        Compressor c = Compressor.threshold(1e-3, true);
        c.allreduce("w", data, Collective.direct(), state);
        int sent = 0;
        for (int i = 0; i < 2; i++) {
            float[] residual = state.array(CompressionState.name("w", "residual", i));
            for (int j = 0; j < residual.length; j++) {
                float v = before[i][j];
                if (Math.abs(v) < 1e-3f) {
                    assertEquals(v, residual[j], 0f, "a value below the threshold is kept whole");
                } else {
                    sent++;
                    float t = Math.copySign(1e-3f, v);
                    assertEquals(v - t, residual[j], 0f, "a value sent keeps what is above +-t");
                }
            }
        }
        assertTrue(sent > 0 && sent < 8000, "some values, not all, pass a threshold of one standard deviation: " + sent);
    }

    @Test
    void thresholdEncodingSendsSparseIndicesOrADenseBitmapWhicheverIsSmaller() {
        // 1 value in 1000 above the threshold: sparse, 9 bytes of header and 4 per value sent
        CompressionState state = new CompressionState();
        float[] few = new float[1000];
        few[17] = 1f;
        few[500] = -1f;
        Traffic t = Compressor.threshold(0.5, false).allreduce("w", List.of(manager.create(few), manager.create(new float[1000])),
                Collective.direct(), state);
        assertEquals(9 + 4 * 2, t.sentBytes()[0]);
        assertEquals(9, t.sentBytes()[1]);
        // half of them above: a bitmap of 2 bits per value and 5 bytes of header
        float[] many = new float[1000];
        for (int j = 0; j < many.length; j += 2) {
            many[j] = j % 4 == 0 ? 1f : -1f;
        }
        List<NDArray> data = List.of(manager.create(many), manager.create(new float[1000]));
        t = Compressor.threshold(0.5, false).allreduce("w", data, Collective.direct(), new CompressionState());
        assertEquals(5 + 250, t.sentBytes()[0]);
        float[] expected = new float[1000];
        for (int j = 0; j < many.length; j += 2) {
            expected[j] = Math.copySign(0.5f, many[j]);
        }
        assertArrayEquals(expected, data.get(1).toFloatArray(), 0f, "every replica decodes +-t where a value passed");
    }

    @Test
    void thresholdDoublesInTwentyStepsWhileMoreThanOneValueInAHundredPasses() {
        CompressionState state = new CompressionState();
        Compressor c = Compressor.threshold(1e-4, true);
        for (int step = 0; step < 20; step++) {
            c.allreduce("w", gradients(2, new Shape(500), 1, step), Collective.direct(), state);
        }
        double t = ThresholdCompressor.threshold(state, "w", 0, 1e-4);
        assertEquals(2e-4, t, 2e-4 * 20 * EPS, "DL4J's decay rate 0.5^(1/20), 20 times");
    }

    @Test
    void oneBitSendsASignPerValueAndAScale() {
        List<NDArray> data = gradients(2, new Shape(1000), 1, 3);
        float[][] before = values(data);
        Traffic t = Compressor.oneBit(false).allreduce("w", data, Collective.direct(), new CompressionState());
        assertEquals(4 + 125, t.sentBytes()[0], "4 bytes of scale and 1000 bits");
        assertEquals(1000, t.sent()[0], "elements: the values the message stands for");
        float[] sum = data.get(0).toFloatArray();
        for (int j = 0; j < 1000; j++) {
            float expected = 0;
            for (float[] b : before) {
                expected += Math.copySign(mean(b), b[j]);
            }
            assertEquals(expected, sum[j], 2 * EPS * Math.abs(expected));
        }
        assertArrayEquals(sum, data.get(1).toFloatArray(), 0f, "every replica holds the same sum");
    }

    private static float mean(float[] v) {
        double s = 0;
        for (float x : v) {
            s += Math.abs(x);
        }
        return (float) (s / v.length);
    }

    @Test
    void oneBitWithErrorFeedbackSendsTheRunningSumOverManySteps() {
        int steps = 300;
        int n = 200;
        for (boolean feedback : new boolean[] {true, false}) {
            CompressionState state = new CompressionState();
            Compressor c = Compressor.oneBit(feedback);
            double[] gradientSum = new double[n];
            double[] sentSum = new double[n];
            for (int step = 0; step < steps; step++) {
                // a replica whose gradients share one direction: +0.01 on average, noise 0.1
                float[] g = new float[n];
                Random r = new Random(step);
                for (int j = 0; j < n; j++) {
                    g[j] = (float) (0.01 * (j % 2 == 0 ? 1 : -1) + 0.1 * r.nextGaussian());
                    gradientSum[j] += g[j];
                }
                List<NDArray> one = List.of(manager.create(g));
                c.allreduce("w", one, Collective.direct(), state);
                float[] d = one.get(0).toFloatArray();
                for (int j = 0; j < n; j++) {
                    sentSum[j] += d[j];
                }
            }
            double worst = 0;
            for (int j = 0; j < n; j++) {
                worst = Math.max(worst, Math.abs(sentSum[j] - gradientSum[j]));
            }
            if (feedback) {
                // what was sent differs from the gradients' sum by the last residual only, which stays below a
                // few scales (each about 0.08) while the sums grow to 0.01 x 300 = 3
                float[] residual = state.array(CompressionState.name("w", "residual", 0));
                for (int j = 0; j < n; j++) {
                    assertEquals(gradientSum[j] - sentSum[j], residual[j], steps * 4 * EPS, "the sums differ by the residual");
                }
                assertTrue(worst < 1, "with error feedback the sums stay within 1 of each other: " + worst);
            } else {
                assertTrue(worst > 3, "without error feedback the sent sum drifts from the gradients': " + worst);
            }
        }
    }

    @Test
    void float16SendsTwoBytesPerValueRoundedAsPyTorchRoundsThem() {
        List<NDArray> data = gradients(3, new Shape(10, 10), 1, 5);
        float[][] before = values(data);
        Traffic t = Compressor.float16(false).allreduce("w", data, Collective.direct(), new CompressionState());
        assertEquals(2 * 2 * 100, t.sentBytes()[0], "to 2 other replicas, 2 bytes per value");
        float[] sum = data.get(2).toFloatArray();
        for (int j = 0; j < 100; j++) {
            float expected = 0;
            for (float[] b : before) {
                expected += manager.create(b[j]).toType(DataType.FLOAT16, false).toType(DataType.FLOAT32, false).getFloat();
            }
            assertEquals(expected, sum[j], 0f);
        }
    }

    @Test
    void powerSgdAtFullRankEqualsTheUncompressedSumUpToFloatRounding() {
        int n = 6;
        int m = 5;
        List<NDArray> data = gradients(3, new Shape(n, m), 1, 7);
        List<NDArray> exact = data.stream().map(NDArray::duplicate).toList();
        Collective.direct().allreduce("w", exact);
        PowerSgdCompressor c = (PowerSgdCompressor) Compressor.powerSgd(1, 0, false);
        c.approximate("w", data, Collective.direct(), new CompressionState(), Math.min(n, m));
        float[] want = exact.get(0).toFloatArray();
        float[] got = data.get(0).toFloatArray();
        float largest = 0;
        for (float w : want) {
            largest = Math.max(largest, Math.abs(w));
        }
        // Gram-Schmidt over n rows and r columns, products of length m and r: each a few (n + m + r) roundings
        float bound = 4 * (n + m + Math.min(n, m)) * EPS * largest * 3;
        for (int j = 0; j < want.length; j++) {
            assertEquals(want[j], got[j], bound, "element " + j);
        }
    }

    @Test
    void powerSgdOfRankOneRecoversARankOneSumInOneStep() {
        // M_i = u v_i^T: their sum is u (sum v_i)^T, of rank 1
        float[] u = {1, -2, 0.5f, 3, 1, 2, -1, 0.25f};
        List<NDArray> data = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            float[] m = new float[8 * 6];
            for (int a = 0; a < 8; a++) {
                for (int b = 0; b < 6; b++) {
                    m[a * 6 + b] = u[a] * (b + 1) * (i + 1);
                }
            }
            data.add(manager.create(m, new Shape(8, 6)));
        }
        float[] want = data.get(0).add(data.get(1)).toFloatArray();
        Traffic t = Compressor.powerSgd(1, 0, true).allreduce("w", data, Collective.direct(), new CompressionState());
        float[] got = data.get(1).toFloatArray();
        for (int j = 0; j < want.length; j++) {
            assertEquals(want[j], got[j], 64 * EPS * 54, "element " + j);
        }
        assertEquals(4 * (8 + 6), t.sentBytes()[1], "P (8 x 1) and Q (6 x 1) through device 0, in float32");
    }

    @Test
    void powerSgdSendsPlainlyWhatItCannotShrinkAndDuringItsFirstSteps() {
        assertFalse(PowerSgdCompressor.compresses(new Shape(10), 1), "a vector");
        assertFalse(PowerSgdCompressor.compresses(new Shape(4, 4), 2), "(4 + 4) x 2 is not below 16");
        assertTrue(PowerSgdCompressor.compresses(new Shape(6, 1, 5, 5), 2), "(6 + 25) x 2 < 150");
        CompressionState state = new CompressionState();
        Compressor c = Compressor.powerSgd(2, 1, true);
        List<NDArray> data = gradients(2, new Shape(6, 25), 1, 9);
        List<NDArray> exact = data.stream().map(NDArray::duplicate).toList();
        Traffic first = c.allreduce("w", data, Collective.direct(), state);
        Collective.direct().allreduce("w", exact);
        assertArrayEquals(exact.get(0).toFloatArray(), data.get(0).toFloatArray(), 0f, "step 1 is a plain allreduce");
        assertEquals(150 * 4, first.sentBytes()[1]);
        Traffic second = c.allreduce("w", gradients(2, new Shape(6, 25), 1, 10), Collective.direct(), state);
        assertEquals((6 + 25) * 2 * 4, second.sentBytes()[1], "step 2 sends P and Q");
    }

    @Test
    void badSettingsAreRefusedWithWhatToUseInstead() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Compressor.powerSgd(0, 0, true))
                .getMessage().contains("rank must be at least 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Compressor.threshold(0, true))
                .getMessage().contains("must be a positive number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Compressor.threshold(Double.NaN, true))
                .getMessage().contains("must be a positive number"));
        List<NDArray> halves = List.of(manager.ones(new Shape(4), DataType.FLOAT16), manager.ones(new Shape(4), DataType.FLOAT16));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Compressor.oneBit(true).allreduce("w", halves, Collective.direct(), new CompressionState()))
                .getMessage().contains("compresses float32 gradients"));
    }
}
