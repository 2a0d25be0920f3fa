package org.d2l.multigpu.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.d2l.multigpu.compression.CompressionState;
import org.junit.jupiter.api.Test;

/** How the driver keeps the ranks' compressor state: each rank gets its own and the shared, and reports what changed. */
class CompressionValuesTest {

    /** The driver's copy after an epoch: rank 0's and rank 1's residual and threshold, and the shared Q. */
    private static CompressionValues driver() {
        CompressionState s = new CompressionState();
        s.put("conv@residual0", new float[] {1, 2});
        s.put("conv@residual1", new float[] {3, 4});
        s.put("conv@threshold0", 0.5);
        s.put("conv@threshold1", 0.25);
        s.put("conv@Q", new float[] {9});
        s.put("conv@steps", 7);
        return CompressionValues.of(s);
    }

    @Test
    void eachRankLoadsItsOwnEntriesAndTheSharedOnesOnly() {
        CompressionValues rank1 = driver().forReplica(1);
        assertEquals(Set.of("conv@residual1", "conv@Q"), rank1.arrays().keySet());
        assertEquals(Set.of("conv@threshold1", "conv@steps"), rank1.numbers().keySet());
        assertEquals(-1, CompressionState.replicaOf("conv@Q"));
        assertEquals(12, CompressionState.replicaOf("layer2@residual12"));
    }

    @Test
    void theDriverLaysEachRanksChangesOverWhatItHeldAndKeepsWhatNoRankChanged() {
        CompressionValues held = driver();
        CompressionValues[] reports = new CompressionValues[2];
        for (int rank = 0; rank < 2; rank++) {
            CompressionValues loaded = held.forReplica(rank);
            CompressionState s = new CompressionState();
            loaded.loadInto(s);
            s.put("conv@residual" + rank, new float[] {10 + rank, 20 + rank}); // this epoch's residual
            s.put("conv@Q", new float[] {8}); // the same on every rank: an allreduced value
            reports[rank] = CompressionValues.of(s).changedSince(loaded);
            assertEquals(Set.of("conv@residual" + rank, "conv@Q"), reports[rank].arrays().keySet(), "rank " + rank);
            assertEquals(Set.of(), reports[rank].numbers().keySet(), "rank " + rank + " changed no number");
        }
        for (CompressionValues r : reports) {
            held = held.with(r);
        }
        assertArrayEquals(new float[] {10, 20}, held.arrays().get("conv@residual0"));
        assertArrayEquals(new float[] {11, 21}, held.arrays().get("conv@residual1"));
        assertArrayEquals(new float[] {8}, held.arrays().get("conv@Q"));
        assertEquals(0.25, held.numbers().get("conv@threshold1"));
        assertEquals(7.0, held.numbers().get("conv@steps"));
    }
}
