package org.d2l.multigpu.compression;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;

/**
 * A compressor that encodes each replica's array on its own into a message of bytes: every replica sends
 * its message to every other ({@link Collective#allGatherMessages}), and each one decodes them all and
 * adds them up in replica order, so that every replica holds the same sum. A null array is a replica in
 * another process (a Spark rank's view), whose message arrives through the collective. With error feedback a replica adds what it
 * did not send last time (its residual) before encoding, and keeps what it does not send now.
 */
abstract class ElementwiseCompressor implements Compressor {

    private static final long serialVersionUID = 1L;

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
        NDArray first = CompressionHook.firstHere(data);
        int n = Math.toIntExact(first.size());
        List<byte[]> messages = new ArrayList<>(Collections.nCopies(k, (byte[]) null));
        float[][] decoded = new float[k][];
        for (int i = 0; i < k; i++) {
            NDArray a = data.get(i);
            if (a == null) {
                continue; // another process's replica: its message arrives through the wire
            }
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
            decoded[i] = decode(message, n);
            if (errorFeedback) {
                for (int j = 0; j < n; j++) {
                    v[j] -= decoded[i][j]; // what was not sent stays here for the next step
                }
                residualKept(v, key, i, state);
                state.put(residualName, v);
            }
            messages.set(i, message);
        }
        Traffic traffic = wire.allGatherMessages(messages, n);
        float[] sum = new float[n];
        for (int i = 0; i < k; i++) {
            float[] d = decoded[i] != null ? decoded[i] : decode(messages.get(i), n);
            for (int j = 0; j < n; j++) {
                sum[j] += d[j];
            }
        }
        try (NDManager tmp = first.getManager().newSubManager()) {
            NDArray s = tmp.create(sum, first.getShape());
            for (NDArray a : data) {
                if (a != null) {
                    OnDevice.copyInto(s, a);
                }
            }
        }
        return traffic;
    }

    /** " with error feedback" or " without error feedback", for {@link #describe()}. */
    String feedback() {
        return errorFeedback ? ", error feedback" : ", no error feedback";
    }
}
