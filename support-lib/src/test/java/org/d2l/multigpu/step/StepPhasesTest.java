package org.d2l.multigpu.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepPhasesTest {

    @Test
    void aCollectivePhaseIsOneSpanOnEachReplicaItConcerns() {
        StepPhases p = new StepPhases(3);
        long start = StepPhases.now();
        p.add(0, 3, Phase.SYNC, start);
        List<StepPhases.Span> spans = p.spans();
        assertEquals(3, spans.size());
        for (int r = 0; r < 3; r++) {
            assertEquals(r, spans.get(r).replica());
            assertEquals(spans.get(0).start(), spans.get(r).start());
            assertEquals(spans.get(0).end(), spans.get(r).end());
        }
    }

    @Test
    void spansComeInOrderOfTheirStartAndAddUpPerReplicaAndPhase() throws InterruptedException {
        StepPhases p = new StepPhases(2);
        long first = StepPhases.now();
        Thread.sleep(2);
        long second = StepPhases.now();
        p.add(1, Phase.FORWARD, second);
        p.add(0, Phase.FORWARD, first);
        String r = p.time(1, Phase.BACKWARD, () -> "done");
        assertEquals("done", r);
        List<StepPhases.Span> spans = p.spans();
        assertEquals(List.of(0, 1, 1), spans.stream().map(StepPhases.Span::replica).toList());
        assertTrue(spans.get(0).millis() >= 2, "replica 0's forward began 2 ms earlier: " + spans.get(0));
        assertEquals(spans.get(1).millis(), p.millis(1, Phase.FORWARD));
        assertEquals(0, p.millis(0, Phase.UPDATE));
        assertEquals(spans.stream().mapToDouble(StepPhases.Span::end).max().getAsDouble(), p.span());
        assertEquals(spans.get(0).start(), p.start(0, Phase.FORWARD));
        assertEquals(spans.get(2).end(), p.end(1, Phase.BACKWARD));
        assertTrue(Double.isNaN(p.start(0, Phase.SYNC)) && Double.isNaN(p.end(0, Phase.SYNC)));
    }

    @Test
    void aReplicaOutsideTheStepIsRefused() {
        StepPhases p = new StepPhases(2);
        long start = StepPhases.now();
        assertThrows(IllegalArgumentException.class, () -> p.add(2, Phase.DATA, start));
        assertThrows(IllegalArgumentException.class, () -> p.add(1, 1, Phase.SYNC, start));
        assertThrows(IllegalArgumentException.class, () -> new StepPhases(0));
    }
}
