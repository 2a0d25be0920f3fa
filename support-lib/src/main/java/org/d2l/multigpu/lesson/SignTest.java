package org.d2l.multigpu.lesson;

/**
 * The sign test for paired measurements: how likely one side wins at least so many of n pairs when both are
 * equally likely to win each pair, as it is when two timings differ only by chance.
 */
public final class SignTest {

    private SignTest() {}

    /** The probability that one side wins at least {@code wins} of {@code pairs} pairs by chance: P(X >= wins), X ~ Binomial(pairs, 1/2). */
    public static double pValue(int pairs, int wins) {
        if (pairs < 1 || pairs > 1000) {
            throw new IllegalArgumentException("The sign test here takes 1 to 1000 pairs, got " + pairs + ".");
        }
        if (wins < 0 || wins > pairs) {
            throw new IllegalArgumentException("Wins must lie between 0 and the " + pairs + " pairs, got " + wins + ".");
        }
        double logHalf = pairs * Math.log(0.5);
        double tail = 0;
        double logChoose = 0; // log C(pairs, k), from k = 0 up
        for (int k = 0; k <= pairs; k++) {
            if (k >= wins) {
                tail += Math.exp(logChoose + logHalf);
            }
            logChoose += Math.log(pairs - k) - Math.log(k + 1.0);
        }
        return Math.min(1, tail);
    }

    /** The fewest wins of {@code pairs} that chance reaches with probability at most {@code alpha}. */
    public static int fewestWins(int pairs, double alpha) {
        if (!(alpha > 0 && alpha < 1)) {
            throw new IllegalArgumentException("The level alpha must lie strictly between 0 and 1, got " + alpha + ".");
        }
        for (int w = 0; w <= pairs; w++) {
            if (pValue(pairs, w) <= alpha) {
                return w;
            }
        }
        throw new IllegalArgumentException("Even " + pairs + " wins of " + pairs + " pairs happen by chance with probability "
                + pValue(pairs, pairs) + ", above " + alpha + ": take more pairs.");
    }
}
