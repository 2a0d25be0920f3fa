package org.d2l.multigpu.lesson;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.data.Settings;
import org.d2l.multigpu.runtime.Env;

/**
 * A statement a lesson makes about its own run, checked in that run and printed as one line that
 * starts with {@value #HOLDS} when it holds and {@value #FAILS} when it does not, followed by the
 * statement and the value measured. There are two kinds: a <em>claim</em> ({@link #that}) about the
 * run's outcome, which could have come out otherwise (an accuracy, a speed, two different
 * computations that agree), and a <em>check</em> ({@link #check}) that the code agrees with a formula
 * or an invariant (bytes counted against the paper's formula, a property of a partition); a check's
 * line says {@value #CHECK} after the mark. The measured value is a number or a short list of numbers
 * (at most {@value #MAX_VALUES}), never a boolean or a text: the mark already says whether it holds.
 *
 * <p>How a line that does not hold counts depends on the run, told by {@code D2L_CLAIMS} (or
 * {@code -Dd2l.claims}), which {@code scripts/run-notebooks.sh} sets: {@code record} (a recording; the
 * runner refuses to save a lesson with a failed claim or check), {@code smoke} (CI's tiny settings,
 * where data too small to show a point is expected: the line says it was not checked), or unset (a
 * learner's own run: the line is printed and nothing else happens).
 */
public final class Claim {

    /** The mark of a line that holds. */
    public static final String HOLDS = "✔";
    /** The mark of a line that does not hold. */
    public static final String FAILS = "✘";
    /** The mark of a claim this machine cannot show (too few CPU cores): neither held nor failed. */
    public static final String NOT_CHECKED = "○";
    /** The word after the mark that tells a check from a claim. */
    public static final String CHECK = "check:";
    /** The most numbers a measured value may list. */
    public static final int MAX_VALUES = 8;
    /** The variable that tells claims what kind of run this is: {@code record}, {@code smoke} or unset. */
    public static final String D2L_CLAIMS = "D2L_CLAIMS";

    /** What a line states: the run's outcome, or the code's agreement with a formula or invariant. */
    public enum Kind {
        /** An outcome of the run that could have come out otherwise. */
        CLAIM,
        /** The code agrees with a formula or an invariant. */
        CHECK
    }

    /** What kind of run checks the claims. */
    public enum Mode {
        /** A learner's run: failed claims are printed, nothing more. */
        INTERACTIVE,
        /** Settings smaller than the lesson's (CI's smoke run, or a learner's DATASET_LIMIT or MAX_EPOCH): failed claims are printed as not checked. */
        SMOKE,
        /** A recording: the runner fails the recording on any failed claim or check. */
        RECORD
    }

    private Claim() {}

    /**
     * Prints the claim {@code statement} about the run's outcome with the value it was judged on
     * (a number, or a short list of numbers such as {@code List.of(gap, spread)}), e.g.
     * {@code Claim.that("2 devices follow 1 device within the seed-to-seed spread", gap, gap <= spread)};
     * it returns nothing, so that a cell ending with a claim shows only the claim's line.
     */
    public static void that(String statement, Object measured, boolean holds) {
        System.out.println(line(Kind.CLAIM, statement, measured, holds, mode(), Settings.get().describe()));
    }

    /**
     * Prints the claim as {@link #that} does where the process has at least {@code cores} CPU cores, else a
     * line marked {@value #NOT_CHECKED} that says it is not checked and why: a claim that threads run at the
     * same time cannot hold on one core (Binder's), where they take turns.
     */
    public static void thatOnCores(int cores, String statement, Object measured, boolean holds) {
        System.out.println(coresLine(cores, Runtime.getRuntime().availableProcessors(), statement, measured, holds));
    }

    /** The line {@link #thatOnCores} prints when the process has {@code available} cores. */
    static String coresLine(int cores, int available, String statement, Object measured, boolean holds) {
        if (available >= cores) {
            return line(Kind.CLAIM, statement, measured, holds, mode(), Settings.get().describe());
        }
        return NOT_CHECKED + " not checked on " + available + " CPU core" + (available == 1 ? "" : "s") + ", it needs "
                + cores + ": " + statement.strip() + " (measured: " + format(measured) + ")";
    }

    /**
     * Prints the check {@code statement} that the code agrees with a formula or an invariant, with the
     * value it was judged on, e.g. {@code Claim.check("each replica holds 16P bytes (largest difference)", off, off == 0)}.
     */
    public static void check(String statement, Object measured, boolean holds) {
        System.out.println(line(Kind.CHECK, statement, measured, holds, mode(), Settings.get().describe()));
    }

    /** The line {@link #that} or {@link #check} prints in {@code mode}; {@code settings} names the run's settings for smoke runs. */
    public static String line(Kind kind, String statement, Object measured, boolean holds, Mode mode, String settings) {
        if (statement == null || statement.isBlank()) {
            throw new IllegalArgumentException("A claim needs a statement that says what is claimed, e.g. "
                    + "\"2 devices follow 1 device within 0.03 test accuracy per epoch\".");
        }
        String text = (holds ? HOLDS : FAILS) + " " + (kind == Kind.CHECK ? CHECK + " " : "") + statement.strip()
                + " (measured: " + format(measured);
        if (!holds && mode == Mode.SMOKE) {
            text += "; not checked at these settings, " + settings + ", which are too small to show it";
        }
        return text + ")";
    }

    /**
     * The mode of this process: {@code D2L_CLAIMS} first, then the property {@code d2l.claims}; unset, a
     * learner's run, which counts as {@link Mode#SMOKE} when {@code DATASET_LIMIT} or {@code MAX_EPOCH} makes
     * it smaller than the lesson's (Binder's defaults, say), so that a claim the small run cannot show says so.
     */
    public static Mode mode() {
        Mode m = parseMode(Env.get(D2L_CLAIMS).orElse(null));
        Settings s = Settings.get();
        boolean reduced = s.datasetLimit().isPresent() || s.maxEpoch().isPresent();
        return m == Mode.INTERACTIVE && reduced ? Mode.SMOKE : m;
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

    /**
     * The measured value as printed: a number, or the numbers of an array or collection separated
     * by commas; anything else (a boolean, a text, an empty or long list) is refused with an error
     * that says what to pass instead.
     */
    static String format(Object measured) {
        List<String> parts = new ArrayList<>();
        for (Object value : values(measured)) {
            if (!(value instanceof Number n)) {
                throw refused(measured);
            }
            parts.add(number(n));
        }
        if (parts.isEmpty() || parts.size() > MAX_VALUES) {
            throw new IllegalArgumentException("A claim's measured value is a number or a short list of at most "
                    + MAX_VALUES + " numbers, got " + parts.size() + " numbers: give the claim the few numbers it "
                    + "is judged on and print the rest on a line of its own.");
        }
        return String.join(", ", parts);
    }

    private static List<Object> values(Object measured) {
        List<Object> values = new ArrayList<>();
        if (measured != null && measured.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(measured); i++) {
                values.add(Array.get(measured, i));
            }
        } else if (measured instanceof Collection<?> c) {
            values.addAll(c);
        } else {
            values.add(measured);
        }
        return values;
    }

    private static IllegalArgumentException refused(Object measured) {
        String what = measured instanceof Boolean ? "the boolean " + measured + ", which says no more than the mark"
                : measured instanceof CharSequence ? "the text \"" + measured + "\""
                : measured == null ? "null" : "a " + measured.getClass().getSimpleName() + " (" + measured + ")";
        return new IllegalArgumentException("A claim's measured value is a number or a short list of numbers "
                + "(e.g. List.of(gap, spread)), got " + what + ": pass the number the statement judges (a "
                + "difference, a ratio, a count) and say in the statement what it is; print any explanation with "
                + "System.out.println.");
    }

    /** A number in four significant digits, never fewer than its integer digits (scientific notation when tiny or huge); integers in full. */
    private static String number(Number n) {
        if (n instanceof Double || n instanceof Float || n instanceof BigDecimal) {
            double d = n.doubleValue();
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
            if (a >= 1e4) {
                return String.format(Locale.ROOT, "%.0f", d); // 16134, as a lesson's printf shows it, not 16130
            }
            return new BigDecimal(d).round(new MathContext(4)).stripTrailingZeros().toPlainString();
        }
        return String.valueOf(n);
    }
}
