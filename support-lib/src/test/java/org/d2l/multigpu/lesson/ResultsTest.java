package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ResultsTest {

    @Test
    void aFinishedCellsResultIsReadBack() {
        Results results = new Results();
        assertEquals(42, (int) results.run("epoch", () -> 42));
        assertEquals(42, (int) results.<Integer>get("epoch"));
    }

    @Test
    void aFailedCellsReasonReachesTheCellsThatReadIt() {
        Results results = new Results();
        RuntimeException cause = new IllegalStateException("The training loss is NaN at step 2.");
        assertSame(cause, assertThrows(IllegalStateException.class, () -> results.run("run", () -> {
            throw cause;
        })));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> results.get("run"));
        assertTrue(e.getMessage().contains("The run did not finish: The training loss is NaN"), e.getMessage());
        assertSame(cause, e.getCause());
        IllegalStateException never = assertThrows(IllegalStateException.class, () -> results.get("other"));
        assertTrue(never.getMessage().endsWith("run its cell first."), never.getMessage());
    }

    @Test
    void aCellRunAgainReplacesItsFailure() {
        Results results = new Results();
        assertThrows(ArithmeticException.class, () -> results.run("run", () -> 1 / (int) Math.floor(0.5)));
        results.run("run", () -> "fine");
        assertEquals("fine", results.get("run"));
    }
}
