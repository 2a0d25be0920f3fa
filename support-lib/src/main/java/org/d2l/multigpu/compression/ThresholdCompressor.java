package org.d2l.multigpu.compression;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Deeplearning4j's threshold encoding (Strom 2015): of each replica's array only the values of magnitude
 * at least the threshold t are sent, each as +t or -t, sparse (an int per value: its index and sign) or,
 * when more than 1 in 16 pass, as a dense bitmap of 2 bits per value, whichever is smaller; the rest stays
 * in the residual (error feedback), which DL4J clips to 5t every 5 steps. The threshold adapts as DL4J's
 * {@code AdaptiveThresholdAlgorithm} does: while the share of values sent stays within 1e-4 to 1e-2 it is
 * kept, below it is multiplied by 0.5^(1/20), above it divided by that (at most 2x in 20 steps); each
 * replica keeps its own for each array.
 */
final class ThresholdCompressor extends ElementwiseCompressor {

    private static final long serialVersionUID = 1L;

    static final double MIN_SPARSITY = 1e-4;
    static final double MAX_SPARSITY = 1e-2;
    static final double DECAY = Math.pow(0.5, 1 / 20.0);
    static final int CLIP_EVERY = 5;
    static final double CLIP_AT = 5;

    private static final byte SPARSE = 0;
    private static final byte BITMAP = 1;

    private final double initial;

    ThresholdCompressor(double initial, boolean errorFeedback) {
        super(errorFeedback);
        if (!(initial > 0) || Double.isInfinite(initial)) {
            throw new IllegalArgumentException("The threshold encoding's initial threshold must be a positive number, got "
                    + initial + " (DL4J's default is 1e-3; a typical range is 1e-5 to 1e-2).");
        }
        this.initial = initial;
    }

    /** The threshold replica {@code replica} uses next for {@code key}. */
    static double threshold(CompressionState state, String key, int replica, double initial) {
        return state.number(CompressionState.name(key, "threshold", replica), initial);
    }

    @Override
    byte[] encode(float[] values, String key, int replica, CompressionState state) {
        float t = (float) threshold(state, key, replica, initial);
        int passed = 0;
        for (float v : values) {
            if (Math.abs(v) >= t) {
                passed++;
            }
        }
        int n = values.length;
        byte[] message;
        if ((long) passed * 16 <= n) {
            ByteBuffer b = ByteBuffer.allocate(1 + 4 + 4 + 4 * passed).order(ByteOrder.LITTLE_ENDIAN);
            b.put(SPARSE).putFloat(t).putInt(passed);
            for (int j = 0; j < n; j++) {
                if (Math.abs(values[j]) >= t) {
                    b.putInt(j << 1 | (values[j] < 0 ? 1 : 0));
                }
            }
            message = b.array();
        } else {
            ByteBuffer b = ByteBuffer.allocate(1 + 4 + (n + 3) / 4).order(ByteOrder.LITTLE_ENDIAN);
            b.put(BITMAP).putFloat(t);
            message = b.array();
            for (int j = 0; j < n; j++) {
                if (Math.abs(values[j]) >= t) {
                    int code = values[j] < 0 ? 2 : 1;
                    message[5 + j / 4] |= (byte) (code << (2 * (j % 4)));
                }
            }
        }
        double sparsity = n == 0 ? MIN_SPARSITY : (double) passed / n;
        double next = sparsity < MIN_SPARSITY ? t * DECAY : sparsity > MAX_SPARSITY ? t / DECAY : t;
        state.put(CompressionState.name(key, "threshold", replica), next);
        return message;
    }

    @Override
    float[] decode(byte[] message, int n) {
        ByteBuffer b = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
        byte format = b.get();
        float t = b.getFloat();
        float[] d = new float[n];
        if (format == SPARSE) {
            int count = b.getInt();
            for (int c = 0; c < count; c++) {
                int code = b.getInt();
                d[code >>> 1] = (code & 1) != 0 ? -t : t;
            }
        } else {
            for (int j = 0; j < n; j++) {
                int code = (message[5 + j / 4] >> (2 * (j % 4))) & 3;
                d[j] = code == 1 ? t : code == 2 ? -t : 0f;
            }
        }
        return d;
    }

    @Override
    void residualKept(float[] residual, String key, int replica, CompressionState state) {
        String steps = CompressionState.name(key, "steps", replica);
        double step = state.number(steps, 0) + 1;
        state.put(steps, step);
        if (step % CLIP_EVERY == 0) {
            float limit = (float) (CLIP_AT * threshold(state, key, replica, initial));
            for (int j = 0; j < residual.length; j++) {
                residual[j] = Math.max(-limit, Math.min(limit, residual[j]));
            }
        }
    }

    @Override
    public String describe() {
        return "threshold encoding (DL4J, adaptive, from " + initial + feedback() + ")";
    }
}
