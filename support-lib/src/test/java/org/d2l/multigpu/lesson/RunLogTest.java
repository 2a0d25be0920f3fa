package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RunLogTest {

    @Test
    void epochLossIsTheMeanOverTheExamplesOfItsSteps() {
        RunLog log = new RunLog();
        RunLog.Run run = new RunLog.Run("1 device");
        run.step(4, () -> 8f);
        run.step(2, () -> 1f);
        run.epoch(0.5);
        run.step(3, () -> 3f);
        run.epoch(0.75);
        log.add(run);
        assertEquals(List.of(1.5, 1.0), log.get("1 device").trainLoss());
        assertEquals(0.75, log.get("1 device").lastAcc());
        assertEquals(3, run.steps());
        String table = log.table();
        assertTrue(table.contains("1 device") && table.contains("1.0000") && table.contains("all runs"), table);
        assertTrue(run.seconds() >= 0);
    }

    @Test
    void accuracyGapsAreMeansOverTheEpochsAndTheSmallestPairWins() {
        RunLog log = new RunLog();
        double[][] accs = {{0.5, 0.7}, {0.6, 0.7}, {0.9, 0.9}};
        for (int r = 0; r < accs.length; r++) {
            RunLog.Run run = new RunLog.Run("run " + r);
            for (double acc : accs[r]) {
                run.step(1, () -> 1f);
                run.epoch(acc);
            }
            log.add(run);
        }
        assertEquals(0.05, log.meanAccGap("run 0", "run 1"), 1e-12);
        assertEquals(0.3, log.meanAccGap("run 0", "run 2"), 1e-12);
        assertEquals(0.05, log.smallestMeanAccGap("run 0", "run 1", "run 2"), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> log.smallestMeanAccGap("run 0"));
    }

    @Test
    void countsTheStepsAfterWhichReplicasDiffered() {
        RunLog.Run run = new RunLog.Run("2 devices");
        run.replicasEqual(true);
        run.replicasEqual(false);
        run.replicasEqual(false);
        assertEquals(2, run.unequalSteps());
    }

    @Test
    void lowestLastAccuracyIsOverTheFinishedRuns() {
        RunLog log = new RunLog();
        for (float acc : new float[] {0.3f, 0.1f, 0.2f}) {
            RunLog.Run run = new RunLog.Run("acc " + acc);
            run.step(1, () -> 1f);
            run.epoch(acc);
            log.add(run);
        }
        assertEquals(0.1f, log.lowestLastAcc(), 1e-7);
    }

    @Test
    void aRunThatDidNotFinishIsAnErrorThatSaysSo() {
        RunLog log = new RunLog();
        RunLog.Run run = new RunLog.Run("2 devices");
        run.step(1, () -> 1f);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> log.get("2 devices"));
        assertTrue(e.getMessage().contains("did not finish"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> log.add(run));
        assertThrows(IllegalStateException.class, () -> new RunLog.Run("x").epoch(0.5));
    }

    @Test
    void medianStepIgnoresOneSlowStep() {
        RunLog.Run run = new RunLog.Run("r");
        for (int i = 0; i < 3; i++) {
            run.step(1, () -> 0f);
        }
        run.step(1, () -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0f;
        });
        run.step(1, () -> 0f);
        assertTrue(run.medianStepSeconds() < 0.1, "median " + run.medianStepSeconds());
    }
}
