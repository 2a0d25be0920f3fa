package org.d2l.multigpu.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TimerTest {

    private static Timer withTimes(double... seconds) {
        Timer t = new Timer();
        for (double s : seconds) {
            t.record(s);
        }
        return t;
    }

    @Test
    void theMedianOfAnOddCountIsTheMiddleTimeWhateverTheOrder() {
        assertEquals(2.0, withTimes(3, 1, 2).median());
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleTimes() {
        assertEquals(2.5, withTimes(4, 1, 3, 2).median());
    }

    @Test
    void oneSlowStepMovesTheAverageButNotTheMedian() {
        Timer t = withTimes(0.03, 0.03, 0.03, 0.03, 3.0);
        assertEquals(0.03, t.median());
        assertTrue(t.avg() > 0.6, "average " + t.avg());
    }

    @Test
    void withoutRecordedTimesTheMedianIsZero() {
        assertEquals(0.0, new Timer().median());
    }

    @Test
    void stopRecordsTheTimeSinceStart() throws InterruptedException {
        Timer t = new Timer();
        Thread.sleep(5);
        double s = t.stop();
        assertTrue(s >= 0.004, "stopped after " + s + " s");
        assertEquals(s, t.median());
    }
}
