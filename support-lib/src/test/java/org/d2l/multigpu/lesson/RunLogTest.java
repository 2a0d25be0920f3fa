package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RunLogTest {

    @Test
    void aRunKeepsItsAccuracyPerEpochAndCountsItsSteps() {
        RunLog log = new RunLog(null);
        RunLog.Run run = log.start("1 device", 2);
        run.step(() -> {});
        run.step(() -> {});
        run.epoch(0.5);
        run.step(() -> {});
        run.epoch(0.75);
        assertEquals(List.of(0.5, 0.75), log.get("1 device").testAcc());
        assertEquals(0.75, run.lastAcc());
        assertEquals(0.75, run.bestAcc());
        assertEquals(3, run.steps());
        String table = log.table();
        assertTrue(table.contains("1 device") && table.contains("0.7500") && table.contains("all runs"), table);
        assertTrue(run.seconds() >= 0);
    }

    @Test
    void accuracyGapsAreMeansOverTheEpochsAndTheSmallestPairWins() {
        RunLog log = new RunLog(null);
        double[][] accs = {{0.5, 0.7}, {0.6, 0.7}, {0.9, 0.9}};
        for (int r = 0; r < accs.length; r++) {
            RunLog.Run run = log.start("run " + r, accs[r].length);
            for (double acc : accs[r]) {
                run.step(() -> {});
                run.epoch(acc);
            }
        }
        assertEquals(0.05, log.meanAccGap("run 0", "run 1"), 1e-12);
        assertEquals(0.3, log.meanAccGap("run 0", "run 2"), 1e-12);
        assertEquals(0.05, log.smallestMeanAccGap("run 0", "run 1", "run 2"), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> log.smallestMeanAccGap("run 0"));
    }

    @Test
    void aRunWithoutAnEpochIsAnErrorThatSaysSo() {
        RunLog log = new RunLog(null);
        RunLog.Run run = log.start("2 devices", 1);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> log.get("2 devices"));
        assertTrue(e.getMessage().contains("did not finish"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> log.get("3 devices"));
        assertThrows(IllegalStateException.class, () -> run.epoch(0.5));
        assertTrue(!log.table().contains("2 devices"), log.table());
    }

    @Test
    void medianStepIgnoresOneSlowStep() {
        RunLog.Run run = new RunLog(null).start("r", 1);
        for (int i = 0; i < 3; i++) {
            run.step(() -> {});
        }
        run.step(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        run.step(() -> {});
        assertTrue(run.medianStepSeconds() < 0.1, "median " + run.medianStepSeconds());
    }
}
