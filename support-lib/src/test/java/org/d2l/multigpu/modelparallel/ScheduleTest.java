package org.d2l.multigpu.modelparallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.d2l.multigpu.modelparallel.Schedule.Kind;
import org.d2l.multigpu.modelparallel.Schedule.Op;
import org.junit.jupiter.api.Test;

class ScheduleTest {

    private static final int[] STAGES = {1, 2, 3, 4};
    private static final int[] MICRO_BATCHES = {1, 2, 3, 4, 8};

    @Test
    void everyMicroBatchGoesForwardOnceAndBackwardOnceAfterIt() {
        for (Kind kind : Kind.values()) {
            for (int p : STAGES) {
                for (int m : MICRO_BATCHES) {
                    for (int s = 0; s < p; s++) {
                        List<Op> ops = Schedule.ops(kind, s, p, m);
                        assertEquals(2 * m, ops.size());
                        Set<Integer> forwarded = new HashSet<>();
                        Set<Integer> backward = new HashSet<>();
                        for (Op op : ops) {
                            if (op.forward()) {
                                assertTrue(forwarded.add(op.microBatch()), kind + " forwards twice: " + ops);
                            } else {
                                assertTrue(forwarded.contains(op.microBatch()), kind + " backward before forward: " + ops);
                                assertTrue(backward.add(op.microBatch()), kind + " backward twice: " + ops);
                            }
                        }
                        assertEquals(m, backward.size());
                    }
                }
            }
        }
    }

    @Test
    void gpipeHoldsEveryMicroBatchAndOneFOneBAtMostPMinusS() {
        for (int p : STAGES) {
            for (int m : MICRO_BATCHES) {
                for (int s = 0; s < p; s++) {
                    assertEquals(m, Schedule.peakInFlight(Schedule.ops(Kind.GPIPE, s, p, m)));
                    assertEquals(Math.min(p - s, m), Schedule.peakInFlight(Schedule.ops(Kind.ONE_F_ONE_B, s, p, m)),
                            "stage " + s + " of " + p + ", " + m + " micro-batches");
                }
            }
        }
    }

    @Test
    void oneFOneBOnTwoStagesAlternatesAfterOneForward() {
        assertEquals("[F0, F1, B0, F2, B1, F3, B2, B3]", Schedule.ops(Kind.ONE_F_ONE_B, 0, 2, 4).toString());
        assertEquals("[F0, B0, F1, B1, F2, B2, F3, B3]", Schedule.ops(Kind.ONE_F_ONE_B, 1, 2, 4).toString());
    }

    @Test
    void simulatedIdleTimeIsTheBubbleFormulaForBothSchedules() {
        for (Kind kind : Kind.values()) {
            for (int p : STAGES) {
                for (int m : MICRO_BATCHES) {
                    // Small whole numbers: every time in the simulation is exact in binary floating point.
                    Timeline t = Schedule.simulate(Schedule.ops(kind, p, m), 1, 2);
                    assertEquals((m + p - 1) * 3.0, t.span(), kind + " p=" + p + " m=" + m);
                    for (int s = 0; s < p; s++) {
                        assertEquals(Schedule.bubble(p, m), t.idleFraction(s), 1e-12, kind + " p=" + p + " m=" + m);
                    }
                }
            }
        }
    }

    @Test
    void bubbleIsTheFormula() {
        assertEquals(0.0, Schedule.bubble(1, 4));
        assertEquals(1.0 / 5, Schedule.bubble(2, 4));
        assertEquals(3.0 / 4, Schedule.bubble(4, 1));
    }

    @Test
    void aScheduleThatWaitsForEverIsRefused() {
        List<List<Op>> stuck = List.of(List.of(new Op(false, 0), new Op(true, 0)), List.of(new Op(true, 0), new Op(false, 0)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Schedule.simulate(stuck, 1, 1));
        assertTrue(e.getMessage().contains("waits for ever"), e.getMessage());
    }

    @Test
    void aStageOutsideThePipelineIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Schedule.ops(Kind.GPIPE, 2, 2, 4));
        assertTrue(e.getMessage().contains("stages 0 to 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Schedule.ops(Kind.GPIPE, 0, 2, 0));
        assertThrows(IllegalArgumentException.class, () -> Schedule.simulate(Schedule.ops(Kind.GPIPE, 2, 2), 0, 1));
    }
}
