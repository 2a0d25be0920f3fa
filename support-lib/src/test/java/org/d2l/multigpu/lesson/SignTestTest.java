package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SignTestTest {

    @Test
    void pValueMatchesTheBinomialTailCountedByHand() {
        // 8 or more of 9: (C(9,8) + C(9,9)) / 2^9 = 10/512
        assertEquals(10.0 / 512, SignTest.pValue(9, 8), 1e-15);
        // 12 or more of 15: (455 + 105 + 15 + 1) / 32768
        assertEquals(576.0 / 32768, SignTest.pValue(15, 12), 1e-15);
        assertEquals(1.0, SignTest.pValue(41, 0), 1e-12);
        assertEquals(Math.pow(0.5, 41), SignTest.pValue(41, 41), 1e-25);
    }

    @Test
    void fewestWinsIsTheFirstCountWhoseTailIsAtMostAlpha() {
        int w = SignTest.fewestWins(41, 0.01);
        assertTrue(SignTest.pValue(41, w) <= 0.01);
        assertTrue(SignTest.pValue(41, w - 1) > 0.01);
        assertEquals(8, SignTest.fewestWins(9, 0.02)); // 8 or more: 10/512 = 0.0195; 7 or more: 46/512
    }

    @Test
    void tooFewPairsForTheLevelIsRefusedWithTheCause() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SignTest.fewestWins(5, 0.01));
        assertTrue(e.getMessage().contains("take more pairs"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SignTest.pValue(10, 11));
        assertThrows(IllegalArgumentException.class, () -> SignTest.fewestWins(10, 0));
    }
}
