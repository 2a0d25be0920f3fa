package org.d2l.multigpu.compression;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.ByteBuffer;

/** PyTorch's {@code fp16_compress_hook}: each value rounded to float16 (PyTorch's rounding), 2 bytes instead of 4. */
final class Float16Compressor extends ElementwiseCompressor {

    private static final long serialVersionUID = 1L;

    Float16Compressor(boolean errorFeedback) {
        super(errorFeedback);
    }

    @Override
    byte[] encode(float[] values, String key, int replica, CompressionState state) {
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            return m.create(values).toType(DataType.FLOAT16, false).toByteArray();
        }
    }

    @Override
    float[] decode(byte[] message, int n) {
        try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
            NDArray half = m.create(ByteBuffer.wrap(message), new Shape(n), DataType.FLOAT16);
            return half.toType(DataType.FLOAT32, false).toFloatArray();
        }
    }

    @Override
    public String describe() {
        return "float16 (2 bytes per value" + feedback() + ")";
    }
}
