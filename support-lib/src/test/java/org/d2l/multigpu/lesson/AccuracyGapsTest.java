package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.loop.EpochMetrics;
import org.junit.jupiter.api.Test;

class AccuracyGapsTest {

    private static List<EpochMetrics> run(double... testAcc) {
        List<EpochMetrics> h = new ArrayList<>();
        for (int e = 0; e < testAcc.length; e++) {
            h.add(EpochMetrics.of(e + 1, 1.0, 0.5, testAcc[e], 1.0, 1.0));
        }
        return h;
    }

    @Test
    void meanGapAveragesTheEpochsGapsAndSmallestTakesTheClosestPair() {
        Map<String, List<EpochMetrics>> runs = new LinkedHashMap<>();
        runs.put("a", run(0.5, 0.7));
        runs.put("b", run(0.6, 0.6));
        runs.put("c", run(0.5, 0.65));
        assertEquals(0.1, AccuracyGaps.mean(runs, "a", "b"), 1e-12);
        assertEquals(0.025, AccuracyGaps.mean(runs, "a", "c"), 1e-12);
        assertEquals(0.025, AccuracyGaps.smallest(runs, "a", "b", "c"), 1e-12);
    }

    @Test
    void runsOfDifferentLengthsOrMissingOnesAreRefusedWithTheReason() {
        Map<String, List<EpochMetrics>> runs = new LinkedHashMap<>();
        runs.put("a", run(0.5, 0.7));
        runs.put("short", run(0.5));
        assertThrows(IllegalArgumentException.class, () -> AccuracyGaps.mean(runs, "a", "short"));
        assertThrows(IllegalArgumentException.class, () -> AccuracyGaps.smallest(runs, "a"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AccuracyGaps.mean(runs, "a", "gone"));
        assertTrue(e.getMessage().contains("'gone' did not finish"), e.getMessage());
    }
}
