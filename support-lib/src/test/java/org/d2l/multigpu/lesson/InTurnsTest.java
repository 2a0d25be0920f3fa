package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InTurnsTest {

    @Test
    void settingsTakeTurnsAndTheWarmUpRoundIsDropped() {
        List<String> order = new ArrayList<>();
        Map<String, List<Integer>> r = InTurns.run(2, List.of("a", "b"), s -> {
            order.add(s);
            return order.size();
        });
        assertEquals(List.of("a", "b", "a", "b", "a", "b"), order);
        assertEquals(List.of(3, 5), r.get("a"));
        assertEquals(List.of(4, 6), r.get("b"));
        assertEquals(List.of("a", "b"), List.copyOf(r.keySet()));
    }

    @Test
    void noRoundsOrARepeatedSettingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> InTurns.run(0, List.of("a"), s -> s));
        assertThrows(IllegalArgumentException.class, () -> InTurns.run(3, List.of("a", "a"), s -> s));
        assertThrows(IllegalArgumentException.class, () -> InTurns.run(3, List.of(), s -> s));
    }
}
