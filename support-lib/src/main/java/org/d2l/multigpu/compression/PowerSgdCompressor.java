package org.d2l.multigpu.compression;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;

/**
 * PowerSGD (Vogels et al. 2019), as PyTorch's {@code powerSGD_hook}: a gradient read as an n x m matrix M
 * (n: its first dimension) is sent as two thin matrices of rank r, P = M Q (n x r, summed over the
 * replicas, then orthonormalised) and Q = M^T P (m x r, summed), and every replica takes P Q^T; only when
 * (n + m) r < n m, and only after the first {@code plainSteps} steps (before: plain allreduce). Q is kept
 * for the next step (warm start); with error feedback each replica keeps M_i - P Q^T / k.
 * The arithmetic runs on the host in Java, in a fixed order, the same on every CPU.
 */
final class PowerSgdCompressor implements Compressor {

    private static final long serialVersionUID = 1L;

    private final int rank;
    private final int plainSteps;
    private final boolean errorFeedback;

    PowerSgdCompressor(int rank, int plainSteps, boolean errorFeedback) {
        if (rank < 1) {
            throw new IllegalArgumentException("PowerSGD's rank must be at least 1, got " + rank
                    + " (PyTorch's default is 1; 2 to 16 is usual).");
        }
        if (plainSteps < 0) {
            throw new IllegalArgumentException("PowerSGD's plain steps (allreduce before compressing) must be 0 or more, got "
                    + plainSteps + ".");
        }
        this.rank = rank;
        this.plainSteps = plainSteps;
        this.errorFeedback = errorFeedback;
    }

    @Override
    public boolean errorFeedback() {
        return errorFeedback;
    }

    /** Whether an array of {@code shape} is sent compressed at rank {@code r}: a matrix with (n + m) r < n m. */
    static boolean compresses(Shape shape, int r) {
        if (shape.dimension() < 2) {
            return false;
        }
        long n = shape.get(0);
        long m = shape.size() / n;
        return (n + m) * r < n * m;
    }

    @Override
    public Traffic allreduce(String key, List<NDArray> data, Collective wire, CompressionState state) {
        String stepsName = CompressionState.name(key, "steps", -1);
        double step = state.number(stepsName, 0);
        state.put(stepsName, step + 1);
        Shape shape = CompressionHook.firstHere(data).getShape();
        if (step < plainSteps || !compresses(shape, rank)) {
            return wire.allreduce(key, data);
        }
        return approximate(key, data, wire, state, rank);
    }

    /** One PowerSGD step at rank {@code r} whatever the shape (the tests call it at full rank). */
    Traffic approximate(String key, List<NDArray> data, Collective wire, CompressionState state, int r) {
        int k = data.size();
        NDArray first = CompressionHook.firstHere(data);
        Shape shape = first.getShape();
        int n = Math.toIntExact(shape.get(0));
        int m = Math.toIntExact(shape.size() / n);
        float[][] mats = new float[k][]; // null for a replica in another process
        for (int i = 0; i < k; i++) {
            if (data.get(i) == null) {
                continue;
            }
            if (data.get(i).getDataType() != DataType.FLOAT32) {
                throw new IllegalArgumentException(describe() + " compresses float32 gradients, but " + key + " is "
                        + data.get(i).getDataType() + ": train with float32 parameters or float16 with float32 masters.");
            }
            mats[i] = data.get(i).toFloatArray();
            float[] e = state.array(CompressionState.name(key, "residual", i));
            if (errorFeedback && e != null) {
                for (int j = 0; j < mats[i].length; j++) {
                    mats[i][j] += e[j];
                }
            }
        }
        String qName = CompressionState.name(key, "Q", -1);
        float[] q = state.array(qName);
        if (q == null || q.length != m * r) {
            q = new float[m * r];
            Random random = new Random(((long) n << 32) ^ m); // the same on every replica and in every run
            for (int j = 0; j < q.length; j++) {
                q[j] = (float) random.nextGaussian();
            }
        }
        Traffic traffic = Traffic.none(k);
        float[][] ps = new float[k][];
        for (int i = 0; i < k; i++) {
            ps[i] = mats[i] == null ? null : multiply(mats[i], n, m, q, r, false);
        }
        float[] p = new float[n * r];
        traffic = traffic.plus(sum(key + "@P", ps, data, new Shape(n, r), wire, p));
        orthonormalise(p, n, r);
        float[][] qs = new float[k][];
        for (int i = 0; i < k; i++) {
            qs[i] = mats[i] == null ? null : multiply(mats[i], n, m, p, r, true);
        }
        q = new float[m * r];
        traffic = traffic.plus(sum(key + "@Q", qs, data, new Shape(m, r), wire, q));
        state.put(qName, q);
        float[] approx = new float[n * m];
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < m; b++) {
                float s = 0;
                for (int c = 0; c < r; c++) {
                    s += p[a * r + c] * q[b * r + c];
                }
                approx[a * m + b] = s;
            }
        }
        if (errorFeedback) {
            for (int i = 0; i < k; i++) {
                if (mats[i] == null) {
                    continue;
                }
                for (int j = 0; j < approx.length; j++) {
                    mats[i][j] -= approx[j] / k;
                }
                state.put(CompressionState.name(key, "residual", i), mats[i]);
            }
        }
        try (NDManager tmp = first.getManager().newSubManager()) {
            NDArray result = tmp.create(approx, shape);
            for (NDArray a : data) {
                if (a != null) {
                    OnDevice.copyInto(result, a);
                }
            }
        }
        return traffic;
    }

    /** M Q (n x r) or, when {@code transposed}, M^T P (m x r), for M of n x m and the other of (m or n) x r. */
    private static float[] multiply(float[] mat, int n, int m, float[] other, int r, boolean transposed) {
        float[] out = new float[(transposed ? m : n) * r];
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < m; b++) {
                float v = mat[a * m + b];
                for (int c = 0; c < r; c++) {
                    if (transposed) {
                        out[b * r + c] += v * other[a * r + c];
                    } else {
                        out[a * r + c] += v * other[b * r + c];
                    }
                }
            }
        }
        return out;
    }

    /**
     * Sums the replicas' {@code parts} (each of {@code shape}; null for a replica in another process) through
     * {@code wire}'s allreduce into {@code into}.
     */
    private static Traffic sum(String key, float[][] parts, List<NDArray> data, Shape shape, Collective wire, float[] into) {
        try (NDManager tmp = CompressionHook.firstHere(data).getManager().newSubManager()) {
            List<NDArray> arrays = new ArrayList<>(parts.length);
            for (int i = 0; i < parts.length; i++) {
                arrays.add(parts[i] == null ? null : tmp.create(parts[i], shape).toDevice(data.get(i).getDevice(), false));
            }
            Traffic t = wire.allreduce(key, arrays);
            System.arraycopy(CompressionHook.firstHere(arrays).toFloatArray(), 0, into, 0, into.length);
            return t;
        }
    }

    /** Gram-Schmidt on the r columns of p (n x r, row-major), as PyTorch's, with 1e-8 added to each norm. */
    static void orthonormalise(float[] p, int n, int r) {
        for (int c = 0; c < r; c++) {
            for (int prev = 0; prev < c; prev++) {
                float dot = 0;
                for (int a = 0; a < n; a++) {
                    dot += p[a * r + c] * p[a * r + prev];
                }
                for (int a = 0; a < n; a++) {
                    p[a * r + c] -= dot * p[a * r + prev];
                }
            }
            float norm = 0;
            for (int a = 0; a < n; a++) {
                norm += p[a * r + c] * p[a * r + c];
            }
            norm = (float) Math.sqrt(norm) + 1e-8f;
            for (int a = 0; a < n; a++) {
                p[a * r + c] /= norm;
            }
        }
    }

    @Override
    public String describe() {
        return "PowerSGD (rank " + rank + ", plain allreduce for the first " + plainSteps + " steps, warm start"
                + (errorFeedback ? ", error feedback)" : ", no error feedback)");
    }
}
