package org.d2l.multigpu.earlystopping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoppingRuleTest {

    private static final ScoreMonitor ACCURACY = ScoreMonitor.higherIsBetter("accuracy", (t, m) -> 0);
    private static final ScoreMonitor LOSS = ScoreMonitor.lowerIsBetter("loss", (t, m) -> 0);

    /** Feeds {@code scores} until the rule stops; returns every verdict. */
    private static List<StoppingRule.Verdict> run(StoppingRule rule, double... scores) {
        List<StoppingRule.Verdict> verdicts = new ArrayList<>();
        for (double s : scores) {
            StoppingRule.Verdict v = rule.observe(s);
            verdicts.add(v);
            if (v.stop()) {
                break;
            }
        }
        return verdicts;
    }

    private static StoppingRule patience(ScoreMonitor monitor, int patience, double minImprovement) {
        return new StoppingRule(EarlyStoppingConfiguration.builder().optMonitor(monitor)
                .optEpochPatience(patience).optMinImprovement(minImprovement).build());
    }

    private static StoppingRule.Verdict lastOf(List<StoppingRule.Verdict> verdicts) {
        return verdicts.get(verdicts.size() - 1);
    }

    @Test
    void stopsAfterPatienceEpochsWithoutAHigherAccuracy() {
        StoppingRule rule = patience(ACCURACY, 3, 0);
        List<StoppingRule.Verdict> v = run(rule, 0.5, 0.6, 0.7, 0.65, 0.69, 0.68, 0.9);
        assertEquals(6, v.size(), "stops at epoch 6: three epochs after the best, epoch 3");
        assertEquals(StopReason.NO_IMPROVEMENT, lastOf(v).reason());
        assertFalse(v.get(4).stop(), "two epochs without improvement are not yet three");
        assertEquals(3, rule.bestEpoch());
        assertEquals(0.7, rule.bestScore());
        assertEquals(List.of(true, true, true, false, false, false), v.stream().map(StoppingRule.Verdict::newBest).toList());
        assertEquals(List.of(0.5, 0.6, 0.7, 0.65, 0.69, 0.68), rule.scores());
        assertTrue(lastOf(v).message().contains("accuracy") && lastOf(v).message().contains("3 epochs"),
                lastOf(v).message());
    }

    @Test
    void anImprovementResetsThePatience() {
        StoppingRule rule = patience(ACCURACY, 2, 0);
        List<StoppingRule.Verdict> v = run(rule, 0.5, 0.4, 0.6, 0.55, 0.58, 0.7);
        assertEquals(5, v.size());
        assertEquals(3, rule.bestEpoch());
    }

    @Test
    void theSameSequenceStopsDifferentlyForLowerAndHigherIsBetter() {
        double[] scores = {2.0, 1.5, 1.7, 1.8, 1.9, 2.5};
        StoppingRule lower = patience(LOSS, 2, 0);
        List<StoppingRule.Verdict> vl = run(lower, scores);
        assertEquals(4, vl.size(), "as a loss: best 1.5 at epoch 2, stop at epoch 4");
        assertEquals(2, lower.bestEpoch());
        assertEquals(1.5, lower.bestScore());
        StoppingRule higher = patience(ACCURACY, 2, 0);
        List<StoppingRule.Verdict> vh = run(higher, scores);
        assertEquals(3, vh.size(), "as an accuracy: best 2.0 at epoch 1, stop at epoch 3");
        assertEquals(1, higher.bestEpoch());
        assertEquals(2.0, higher.bestScore());
    }

    @Test
    void gainsNoLargerThanTheMinimumImprovementDoNotCount() {
        double[] losses = {1.0, 0.95, 0.949, 0.948, 0.947, 0.946};
        StoppingRule strict = patience(LOSS, 3, 0.01);
        List<StoppingRule.Verdict> v = run(strict, losses);
        assertEquals(5, v.size(), "0.95 is the last gain above 0.01; three epochs later the run stops");
        assertEquals(StopReason.NO_IMPROVEMENT, lastOf(v).reason());
        assertEquals(2, strict.bestEpoch());
        assertEquals(0.95, strict.bestScore());
        // Without a minimum every one of these small gains counts, and the run goes on.
        StoppingRule any = patience(LOSS, 3, 0);
        List<StoppingRule.Verdict> w = run(any, losses);
        assertEquals(6, w.size());
        assertFalse(lastOf(w).stop());
        assertEquals(6, any.bestEpoch());
    }

    @Test
    void anEqualScoreIsNotAnImprovement() {
        StoppingRule rule = patience(ACCURACY, 1, 0);
        List<StoppingRule.Verdict> v = run(rule, 0.8, 0.8);
        assertEquals(2, v.size());
        assertEquals(1, rule.bestEpoch());
    }

    @Test
    void stopsAtTheMaximumNumberOfEpochs() {
        StoppingRule rule = new StoppingRule(EarlyStoppingConfiguration.builder().optMonitor(ACCURACY)
                .optMaxEpochs(3).build());
        List<StoppingRule.Verdict> v = run(rule, 0.1, 0.2, 0.3, 0.4, 0.5);
        assertEquals(3, v.size());
        assertFalse(v.get(1).stop());
        assertEquals(StopReason.MAX_EPOCHS, lastOf(v).reason());
        assertEquals(3, rule.bestEpoch());
    }

    @Test
    void stopsAfterTheFirstEpochThatEndsPastTheMaximumTime() {
        Instant[] now = {Instant.parse("2026-01-01T00:00:00Z")};
        StoppingRule rule = new StoppingRule(EarlyStoppingConfiguration.builder().optMonitor(LOSS)
                .optMaxDuration(Duration.ofMinutes(10)).optClock(() -> now[0]).build());
        List<StoppingRule.Verdict> v = new ArrayList<>();
        for (double loss : new double[] {1.0, 0.9, 0.8, 0.7}) {
            now[0] = now[0].plus(Duration.ofMinutes(4));
            v.add(rule.observe(loss));
            if (lastOf(v).stop()) {
                break;
            }
        }
        assertEquals(3, v.size(), "epochs end at 4, 8 and 12 minutes; 12 >= 10");
        assertEquals(StopReason.MAX_TIME, lastOf(v).reason());
        assertEquals(Duration.ofMinutes(12), rule.elapsed());
        assertTrue(lastOf(v).message().contains("PT12M"), lastOf(v).message());
    }

    @Test
    void exactlyTheMaximumTimeStops() {
        Instant[] now = {Instant.EPOCH};
        StoppingRule rule = new StoppingRule(EarlyStoppingConfiguration.builder()
                .optMaxDuration(Duration.ofSeconds(5)).optClock(() -> now[0]).build());
        now[0] = Instant.EPOCH.plusMillis(4999);
        assertFalse(rule.observe(0.5).stop());
        now[0] = Instant.EPOCH.plusSeconds(5);
        assertEquals(StopReason.MAX_TIME, rule.observe(0.6).reason());
    }

    @Test
    void noImprovementIsReportedBeforeTheMaximumEpochsWhenBothHold() {
        StoppingRule rule = new StoppingRule(EarlyStoppingConfiguration.builder().optMonitor(ACCURACY)
                .optMaxEpochs(3).optEpochPatience(2).build());
        List<StoppingRule.Verdict> v = run(rule, 0.9, 0.8, 0.7);
        assertEquals(3, v.size());
        assertEquals(StopReason.NO_IMPROVEMENT, lastOf(v).reason());
    }

    @Test
    void aNanScoreStopsTheRunAndKeepsTheBestSoFar() {
        StoppingRule rule = patience(LOSS, 5, 0);
        List<StoppingRule.Verdict> v = run(rule, 1.0, 0.5, Double.NaN, 0.1);
        assertEquals(3, v.size());
        assertEquals(StopReason.INVALID_SCORE, lastOf(v).reason());
        assertFalse(lastOf(v).newBest());
        assertEquals(2, rule.bestEpoch());
        assertEquals(0.5, rule.bestScore());
    }

    @Test
    void beforeAnyValidScoreThereIsNoBestEpoch() {
        StoppingRule rule = patience(LOSS, 1, 0);
        assertEquals(0, rule.bestEpoch());
        assertTrue(Double.isNaN(rule.bestScore()));
        StoppingRule.Verdict v = rule.observe(Double.POSITIVE_INFINITY);
        assertEquals(StopReason.INVALID_SCORE, v.reason());
        assertEquals(0, rule.bestEpoch());
    }

    @Test
    void aScoreAfterTheStopIsAClearError() {
        StoppingRule rule = new StoppingRule(EarlyStoppingConfiguration.builder().optMaxEpochs(1).build());
        assertTrue(rule.observe(0.5).stop());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> rule.observe(0.6));
        assertTrue(e.getMessage().contains("already stopped"), e.getMessage());
    }

    @Test
    void aRunningVerdictHasNoReason() {
        StoppingRule rule = patience(ACCURACY, 2, 0);
        StoppingRule.Verdict v = rule.observe(0.3);
        assertNull(v.reason());
        assertNull(v.message());
        assertEquals(1, v.epoch());
        assertTrue(v.newBest());
    }
}
