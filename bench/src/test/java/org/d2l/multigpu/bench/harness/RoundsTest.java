package org.d2l.multigpu.bench.harness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundsTest {

    @Test
    void theOrderRotatesByOneEveryRound() {
        List<String> c = List.of("a", "b", "c");
        assertEquals(List.of("a", "b", "c"), Rounds.order(c, 0));
        assertEquals(List.of("b", "c", "a"), Rounds.order(c, 1));
        assertEquals(List.of("c", "a", "b"), Rounds.order(c, 2));
        assertEquals(List.of("a", "b", "c"), Rounds.order(c, 3));
    }

    @Test
    void runsEveryConfigurationOncePerRoundInRotatedOrderAndKeepsItsFigures() throws Exception {
        List<String> measured = new ArrayList<>();
        List<String> reported = new ArrayList<>();
        Measurements r = Rounds.run(List.of("x", "y"), 3, c -> {
            measured.add(c);
            return new double[] {measured.size()};
        }, (round, c, f) -> reported.add(round + c + (int) f[0]));
        assertEquals(List.of("x", "y", "y", "x", "x", "y"), measured);
        assertEquals(List.of("1x1", "1y2", "2y3", "2x4", "3x5", "3y6"), reported);
        assertEquals(List.of("x", "y"), r.configs());
        assertEquals(3, r.rounds());
        assertArrayEquals(new double[] {1, 4, 5}, r.column("x", 0));
        assertArrayEquals(new double[] {2, 3, 6}, r.column("y", 0));
    }

    @Test
    void refusesNoRoundsOrNoConfigurations() {
        assertThrows(IllegalArgumentException.class, () -> Rounds.run(List.of("x"), 0, c -> new double[1], (r, c, f) -> { }));
        assertThrows(IllegalArgumentException.class, () -> Rounds.run(List.of(), 1, c -> new double[1], (r, c, f) -> { }));
    }
}
