package org.d2l.multigpu.lesson;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import org.d2l.multigpu.data.Settings;
import org.d2l.multigpu.runtime.Env;

/**
 * A statement a lesson makes about its own run, checked in that run: {@link #that} prints one line
 * that starts with {@value #HOLDS} when it holds and {@value #FAILS} when it does not, followed by the
 * statement and the measured value.
 *
 * <p>How a failed claim counts depends on the run, told by {@code D2L_CLAIMS} (or {@code -Dd2l.claims}),
 * which {@code scripts/run-notebooks.sh} sets: {@code record} (a recording; the runner refuses to save
 * a lesson with a failed claim), {@code smoke} (CI's tiny settings, where data too small to show a
 * point is expected: the line says the claim was not checked), or unset (a learner's own run: the
 * line is printed and nothing else happens).
 */
public final class Claim {

    /** The mark of a claim that holds. */
    public static final String HOLDS = "✔";
    /** The mark of a claim that does not hold. */
    public static final String FAILS = "✘";
    /** The variable that tells claims what kind of run this is: {@code record}, {@code smoke} or unset. */
    public static final String D2L_CLAIMS = "D2L_CLAIMS";

    /** What kind of run checks the claims. */
    public enum Mode {
        /** A learner's run: failed claims are printed, nothing more. */
        INTERACTIVE,
        /** CI's smoke settings: failed claims are printed as not checked. */
        SMOKE,
        /** A recording: the runner fails the recording on any failed claim. */
        RECORD
    }

    private Claim() {}

    /**
     * Prints the claim {@code statement} with the value it was judged on, e.g.
     * {@code Claim.that("2 devices follow 1 device within 0.03 per epoch", gap, gap <= 0.03)}; it returns
     * nothing, so that a cell ending with a claim shows only the claim's line.
     */
    public static void that(String statement, Object measured, boolean holds) {
        System.out.println(line(statement, measured, holds, mode(), Settings.get().describe()));
    }

    /** The line {@link #that} prints in {@code mode}; {@code settings} names the run's settings for smoke runs. */
    public static String line(String statement, Object measured, boolean holds, Mode mode, String settings) {
        if (statement == null || statement.isBlank()) {
            throw new IllegalArgumentException("A claim needs a statement that says what is claimed, e.g. "
                    + "\"2 devices follow 1 device within 0.03 test accuracy per epoch\".");
        }
        String text = (holds ? HOLDS : FAILS) + " " + statement.strip() + " (measured: " + format(measured);
        if (!holds && mode == Mode.SMOKE) {
            text += "; not checked at the smoke settings " + settings + ", which are too small to show it";
        }
        return text + ")";
    }

    /** The mode of this process: {@code D2L_CLAIMS} first, then the property {@code d2l.claims}. */
    public static Mode mode() {
        return parseMode(Env.get(D2L_CLAIMS).orElse(null));
    }

    /** The mode named by {@code value} ({@code record}, {@code smoke}, or blank for interactive). */
    static Mode parseMode(String value) {
        if (value == null || value.isBlank()) {
            return Mode.INTERACTIVE;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "record" -> Mode.RECORD;
            case "smoke" -> Mode.SMOKE;
            case "interactive" -> Mode.INTERACTIVE;
            default -> throw new IllegalArgumentException(D2L_CLAIMS + " must be record, smoke or unset, got \""
                    + value + "\"; unset it for a run of your own.");
        };
    }

    /** Numbers in four significant digits (scientific notation when tiny or huge), anything else as text. */
    static String format(Object measured) {
        if (measured instanceof Double || measured instanceof Float) {
            double d = ((Number) measured).doubleValue();
            if (d == 0) {
                return "0";
            }
            if (!Double.isFinite(d)) {
                return String.valueOf(d);
            }
            double a = Math.abs(d);
            if (a < 1e-3 || a >= 1e6) {
                return String.format(Locale.ROOT, "%.3e", d);
            }
            return new BigDecimal(d).round(new MathContext(4)).stripTrailingZeros().toPlainString();
        }
        return String.valueOf(measured);
    }
}
