package org.d2l.multigpu.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.d2l.multigpu.runtime.WithCpuManager;
import org.junit.jupiter.api.Test;

/** The seam's in-process collectives: what reduce and broadcast compute, and the traffic they and messages report. */
class InProcessCollectiveTest extends WithCpuManager {

    private List<NDArray> random(int k, int n, long seed) {
        Random r = new Random(seed);
        List<NDArray> data = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            float[] v = new float[n];
            for (int j = 0; j < n; j++) {
                v[j] = (float) r.nextGaussian();
            }
            data.add(manager.create(v, new Shape(n)));
        }
        return data;
    }

    /** The sum of {@code data}'s arrays of {@code from}, added in that order in float32 as one device would. */
    private static float[] inOrder(List<NDArray> data, int[] from) {
        float[] sum = data.get(from[0]).toFloatArray();
        for (int j = 1; j < from.length; j++) {
            float[] v = data.get(from[j]).toFloatArray();
            for (int e = 0; e < sum.length; e++) {
                sum[e] += v[e];
            }
        }
        return sum;
    }

    @Test
    void directReduceAddsInReplicaOrderIntoAnyReplicaEvenOneThatSendsLater() {
        for (int root = 0; root < 4; root++) {
            List<NDArray> data = random(4, 10, root);
            int[] from = {0, 1, 2};
            float[] want = inOrder(data, from);
            Traffic t = Collective.direct().reduce("w", data, from, data.get(root), root);
            assertArrayEquals(want, data.get(root).toFloatArray(), 0f, "root " + root);
            long senders = root < 3 ? 2 : 3; // the root sends nothing when it is one of them
            assertEquals(senders * 10, t.totalSent(), "root " + root);
            assertEquals(senders * 40, t.totalSentBytes(), "root " + root);
            assertEquals(senders * 10, t.received()[root], "root " + root);
        }
    }

    @Test
    void ringReduceGivesTheSumAndSendsEachChunkOnceMore() {
        for (int k : new int[] {2, 3, 4}) {
            List<NDArray> data = random(k, 11, k);
            int[] from = new int[k];
            for (int i = 0; i < k; i++) {
                from[i] = i;
            }
            float[] want = inOrder(data, from);
            NDArray into = manager.zeros(new Shape(11));
            Traffic t = Collective.ring().reduce("w", data, from, into, 0);
            float[] got = into.toFloatArray();
            for (int e = 0; e < want.length; e++) {
                // k - 1 additions in another order: each sum within k - 1 roundings of the other
                float bound = (k - 1) * Math.ulp(1f) * 4 * Math.abs(want[e]) + 1e-6f;
                assertEquals(want[e], got[e], bound, "k " + k + ", element " + e);
            }
            long[] c = Ring.chunkSizes(11, k);
            long gather = 11 - c[0];
            assertEquals((k - 1) * 11 + gather, t.totalSent(), "reduce-scatter (k - 1) N, then every chunk but the root's");
        }
    }

    @Test
    void broadcastCopiesTheRootsValueToEveryReplicaAndCountsOneCopyPerOther() {
        List<NDArray> data = random(3, 5, 1);
        NDArray value = data.get(1);
        float[] want = value.toFloatArray();
        Traffic t = Collective.direct().broadcast(value, 1, data);
        for (NDArray a : data) {
            assertArrayEquals(want, a.toFloatArray(), 0f);
        }
        assertArrayEquals(new long[] {0, 10, 0}, t.sent());
        assertArrayEquals(new long[] {5, 0, 5}, t.received());
        assertArrayEquals(new long[] {0, 40, 0}, t.sentBytes());
    }

    @Test
    void messagesGoDirectlyToEveryOtherReplicaOrRoundTheRingAllButTheNextOnesOwn() {
        List<byte[]> messages = List.of(new byte[10], new byte[200], new byte[3000]); // lengths L0, L1, L2
        Traffic direct = Collective.direct().allGatherMessages(new ArrayList<>(messages), 50);
        Traffic ring = Collective.ring().allGatherMessages(new ArrayList<>(messages), 50);
        assertArrayEquals(new long[] {2 * 10, 2 * 200, 2 * 3000}, direct.sentBytes(), "each its own to the 2 others");
        assertArrayEquals(new long[] {10 + 3000, 200 + 10, 3000 + 200}, ring.sentBytes(),
                "replica r sends its own and passes on r - 1's, never r + 1's");
        long[] received = {200 + 3000, 10 + 3000, 10 + 200}; // everyone's but its own, either way
        assertArrayEquals(received, direct.receivedBytes());
        assertArrayEquals(received, ring.receivedBytes());
        assertArrayEquals(new long[] {100, 100, 100}, ring.sent(), "2 messages of 50 values each");
    }
}
