package org.d2l.multigpu.modelparallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.d2l.multigpu.modelparallel.Schedule.Op;
import org.d2l.multigpu.plot.SchedulePlot;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

class TimelineTest {

    @Test
    void idleFractionIsTheTimeOutsideThePassesOverTheSpan() {
        Timeline t = new Timeline(2);
        t.add(0, new Op(true, 0), 0, 1);
        t.add(1, new Op(true, 0), 1, 2);
        t.add(1, new Op(false, 0), 2, 4);
        t.add(0, new Op(false, 0), 4, 6);
        assertEquals(6, t.span());
        assertEquals(3, t.busy(0));
        assertEquals(0.5, t.idleFraction(0));
        assertEquals(0.5, t.idleFraction(1));
        assertEquals(0.5, t.idleFraction());
    }

    @Test
    void timeAddsThePassWithTheMillisecondsItTook() throws Exception {
        Timeline t = new Timeline(1);
        String out = t.time(0, new Op(true, 3), () -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "done";
        });
        assertEquals("done", out);
        Timeline.Entry e = t.entries().get(0);
        assertEquals("F3", e.op().toString());
        assertTrue(e.end() - e.start() >= 19, "slept 20 ms, measured " + (e.end() - e.start()));
    }

    @Test
    void tableAndPlotShowEveryPass() {
        Timeline t = Schedule.simulate(Schedule.ops(Schedule.Kind.GPIPE, 2, 3), 1, 2);
        Table table = t.table();
        assertEquals(12, table.rowCount());
        assertEquals(List.of("stage", "pass", "start", "end"), table.columnNames());
        byte[] png = SchedulePlot.of(t, "GPipe", "time").png();
        assertEquals((byte) 0x89, png[0]);
        assertEquals('P', png[1]);
        assertTrue(SchedulePlot.of(t, "GPipe", "time").toString().contains("12 boxes on 2 rows"));
    }

    @Test
    void aPassOfAnotherStageOrEndingBeforeItStartsIsRefused() {
        Timeline t = new Timeline(2);
        assertThrows(IllegalArgumentException.class, () -> t.add(2, new Op(true, 0), 0, 1));
        assertThrows(IllegalArgumentException.class, () -> t.add(0, new Op(true, 0), 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Timeline(0));
    }
}
