package org.d2l.multigpu.compression;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;

/**
 * A compressor that encodes each replica's array on its own into a message of bytes: every replica sends
 * its message to every other (an all-gather of messages), and each one decodes them all and adds them up
 * in replica order, so that every replica holds the same sum. With error feedback a replica adds what it
 * did not send last time (its residual) before encoding, and keeps what it does not send now.
 */
abstract class ElementwiseCompressor implements Compressor {

    private final boolean errorFeedback;

    ElementwiseCompressor(boolean errorFeedback) {
        this.errorFeedback = errorFeedback;
    }

    /** Replica {@code replica}'s message for {@code values} of {@code key}, with what it keeps in {@code state}. */
    abstract byte[] encode(float[] values, String key, int replica, CompressionState state);

    /** The {@code n} values a receiver reads from {@code message}. */
    abstract float[] decode(byte[] message, int n);

    /** Called with replica {@code replica}'s new residual of {@code key}, which it may change (DL4J clips it). */
    void residualKept(float[] residual, String key, int replica, CompressionState state) {
    }

    @Override
    public boolean errorFeedback() {
        return errorFeedback;
    }

    @Override
    public Traffic allreduce(String key, List<NDArray> data, Collective wire, CompressionState state) {
        int k = data.size();
        int n = Math.toIntExact(data.get(0).size());
        float[] sum = new float[n];
        long[] sent = new long[k];
        long[] received = new long[k];
        long[] sentBytes = new long[k];
        long[] receivedBytes = new long[k];
        for (int i = 0; i < k; i++) {
            NDArray a = data.get(i);
            if (a.getDataType() != DataType.FLOAT32) {
                throw new IllegalArgumentException(describe() + " compresses float32 gradients, but " + key + " is "
                        + a.getDataType() + ": train with float32 parameters or float16 with float32 masters.");
            }
            float[] v = a.toFloatArray();
            String residualName = CompressionState.name(key, "residual", i);
            float[] residual = state.array(residualName);
            if (errorFeedback && residual != null) {
                for (int j = 0; j < n; j++) {
                    v[j] += residual[j];
                }
            }
            byte[] message = encode(v, key, i, state);
            float[] d = decode(message, n);
            if (errorFeedback) {
                for (int j = 0; j < n; j++) {
                    v[j] -= d[j]; // what was not sent stays here for the next step
                }
                residualKept(v, key, i, state);
                state.put(residualName, v);
            }
            for (int j = 0; j < n; j++) {
                sum[j] += d[j];
            }
            sent[i] += (long) (k - 1) * n;
            sentBytes[i] += (long) (k - 1) * message.length;
            for (int r = 0; r < k; r++) {
                if (r != i) {
                    received[r] += n;
                    receivedBytes[r] += message.length;
                }
            }
        }
        NDArray first = data.get(0);
        try (NDManager tmp = first.getManager().newSubManager()) {
            NDArray s = tmp.create(sum, first.getShape());
            for (NDArray a : data) {
                OnDevice.copyInto(s, a);
            }
        }
        return new Traffic(sent, received, sentBytes, receivedBytes);
    }

    /** " with error feedback" or " without error feedback", for {@link #describe()}. */
    String feedback() {
        return errorFeedback ? ", error feedback" : ", no error feedback";
    }
}
