package org.d2l.multigpu.compression;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * 1-bit SGD (Seide et al. 2014): one bit per value, its sign, and one float32 scale per array, the mean
 * magnitude of its values, so that a receiver reads +scale or -scale; 4 + ceil(n / 8) bytes.
 */
final class OneBitCompressor extends ElementwiseCompressor {

    private static final long serialVersionUID = 1L;

    OneBitCompressor(boolean errorFeedback) {
        super(errorFeedback);
    }

    @Override
    byte[] encode(float[] values, String key, int replica, CompressionState state) {
        double magnitude = 0;
        for (float v : values) {
            magnitude += Math.abs(v);
        }
        float scale = values.length == 0 ? 0f : (float) (magnitude / values.length);
        ByteBuffer b = ByteBuffer.allocate(4 + (values.length + 7) / 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putFloat(scale);
        byte[] m = b.array();
        for (int j = 0; j < values.length; j++) {
            if (values[j] < 0) {
                m[4 + j / 8] |= (byte) (1 << (j % 8));
            }
        }
        return m;
    }

    @Override
    float[] decode(byte[] message, int n) {
        float scale = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN).getFloat(0);
        float[] d = new float[n];
        for (int j = 0; j < n; j++) {
            d[j] = (message[4 + j / 8] & (1 << (j % 8))) != 0 ? -scale : scale;
        }
        return d;
    }

    @Override
    public String describe() {
        return "1-bit sign with a scale per array" + feedback();
    }
}
