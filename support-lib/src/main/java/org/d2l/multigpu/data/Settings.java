package org.d2l.multigpu.data;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.d2l.multigpu.runtime.Env;
import org.d2l.multigpu.runtime.Memory;

/**
 * Run settings from environment variables, each with a system-property fallback of the same
 * lowercase dotted name ({@code DATASET_LIMIT} or {@code -Ddataset.limit=...}); the variable wins.
 *
 * <p>Blank values count as unset; other values are checked when they are read.
 */
public final class Settings {

    /** Use only the first N examples of each split (absent: all). */
    public static final String DATASET_LIMIT = "DATASET_LIMIT";
    /** Upper bound on the number of training epochs (absent: no bound). */
    public static final String MAX_EPOCH = "MAX_EPOCH";
    /** Folder holding the Fashion-MNIST IDX files. */
    public static final String FASHION_MNIST_DIR = "FASHION_MNIST_DIR";
    /** Folder for the unpacked Fashion-MNIST files (absent: the project's build/data/fashion-mnist). */
    public static final String D2L_DATA_CACHE = "D2L_DATA_CACHE";
    /** Who chose this machine's defaults of DATASET_LIMIT and MAX_EPOCH (binder/start: "binder/start"), shown by {@link #describe()}. */
    public static final String D2L_DEFAULTS = "D2L_DEFAULTS";
    /** Seconds a session on this machine may last (binder/start: 3600); longer runs get a warning. */
    public static final String D2L_SESSION_LIMIT = "D2L_SESSION_LIMIT";

    /** The first stage's channel count of the lessons' ResNet-18 (absent: the lesson chooses by device). */
    public static final String RESNET_WIDTH = "RESNET_WIDTH";

    /** {@code false}: a lesson's long runs start afresh instead of resuming from their checkpoints (absent: resume). */
    public static final String D2L_RESUME = "D2L_RESUME";

    private static final List<String> NAMES =
            List.of(DATASET_LIMIT, MAX_EPOCH, FASHION_MNIST_DIR, D2L_DATA_CACHE, D2L_DEFAULTS, D2L_SESSION_LIMIT,
                    RESNET_WIDTH, D2L_RESUME);

    private final Map<String, String> values;

    private Settings(Map<String, String> values) {
        Map<String, String> copy = new HashMap<>();
        values.forEach(
                (k, v) -> {
                    if (k != null && v != null && !v.isBlank()) {
                        copy.put(k, v.trim());
                    }
                });
        this.values = Map.copyOf(copy);
    }

    /** Returns this process's settings: environment variables first, then system properties. */
    public static Settings get() {
        Map<String, String> found = new HashMap<>();
        for (String name : NAMES) {
            Env.get(name).ifPresent(value -> found.put(name, value));
        }
        return new Settings(found);
    }

    /** Returns settings taken from the given variables only, e.g. {@code Map.of("MAX_EPOCH", "2")}. */
    public static Settings from(Map<String, String> variables) {
        return new Settings(variables);
    }

    /** Returns {@code requested} capped by this process's {@code MAX_EPOCH}, e.g. {@code Settings.epochs(10)}. */
    public static int epochs(int requested) {
        return get().capEpochs(requested);
    }

    /** Returns the system property that backs up a variable: {@code MAX_EPOCH} becomes {@code max.epoch}. */
    public static String propertyName(String variable) {
        return Env.propertyName(variable);
    }

    /** Returns {@code DATASET_LIMIT}, the number of examples to use from each split, if set. */
    public OptionalLong datasetLimit() {
        return positive(DATASET_LIMIT);
    }

    /** Returns {@code MAX_EPOCH}, the cap on training epochs, if set. */
    public OptionalInt maxEpoch() {
        OptionalLong max = positive(MAX_EPOCH);
        return max.isPresent()
                ? OptionalInt.of((int) Math.min(max.getAsLong(), Integer.MAX_VALUE))
                : OptionalInt.empty();
    }

    /** Returns min(requested, MAX_EPOCH), or {@code requested} when MAX_EPOCH is unset. */
    public int capEpochs(int requested) {
        if (requested <= 0) {
            throw new IllegalArgumentException(
                    "The requested number of epochs must be positive, got " + requested);
        }
        return Math.min(requested, maxEpoch().orElse(requested));
    }

    /**
     * The run's settings in one line, for a notebook's first output (for example "DATASET_LIMIT=512, MAX_EPOCH=1"),
     * with who chose them and the CPUs and memory they are meant for when {@code D2L_DEFAULTS} is set.
     */
    public String describe() {
        String line = DATASET_LIMIT + "=" + (datasetLimit().isPresent() ? String.valueOf(datasetLimit().getAsLong())
                : "not set (all examples)") + ", " + MAX_EPOCH + "="
                + (maxEpoch().isPresent() ? String.valueOf(maxEpoch().getAsInt()) : "not set (the lesson's epochs)")
                + (resnetWidth().isPresent() ? ", " + RESNET_WIDTH + "=" + resnetWidth().getAsInt() : "");
        String by = values.get(D2L_DEFAULTS);
        if (by == null) {
            return line;
        }
        return line + String.format(Locale.ROOT, " (defaults of %s for this machine's %d CPU(s) and %.1f GB%s;"
                + " a cell such as System.setProperty(\"%s\", \"6000\") changes one before the data is loaded)", by,
                Runtime.getRuntime().availableProcessors(), Memory.availableBytes() / 1e9,
                sessionLimit().isPresent() ? String.format(Locale.ROOT, ", sessions of about %s",
                        minutes(sessionLimit().getAsLong())) : "", propertyName(DATASET_LIMIT));
    }

    /** Returns {@code D2L_SESSION_LIMIT}, the seconds a session on this machine may last, if set. */
    public OptionalLong sessionLimit() {
        return positive(D2L_SESSION_LIMIT);
    }

    private static String minutes(long seconds) {
        return seconds % 3600 == 0 ? (seconds / 3600) + " h" : Math.round(seconds / 60.0) + " min";
    }

    /** Whether a lesson's runs resume from their checkpoints: true unless {@code D2L_RESUME} is false (or 0). */
    public boolean resume() {
        String raw = values.get(D2L_RESUME);
        if (raw == null || raw.equalsIgnoreCase("true") || raw.equals("1")) {
            return true;
        }
        if (raw.equalsIgnoreCase("false") || raw.equals("0")) {
            return false;
        }
        throw new IllegalArgumentException(D2L_RESUME + " (environment variable, or -D" + propertyName(D2L_RESUME)
                + ") must be true or false, got \"" + raw + "\"");
    }

    /** Returns {@code RESNET_WIDTH}, the first stage's channel count for ResNet-18, if set. */
    public OptionalInt resnetWidth() {
        OptionalLong width = positive(RESNET_WIDTH);
        if (width.isPresent() && width.getAsLong() > 1024) {
            throw new IllegalArgumentException(RESNET_WIDTH + " must be at most 1024 (the book's network has 64), got "
                    + width.getAsLong());
        }
        return width.isPresent() ? OptionalInt.of((int) width.getAsLong()) : OptionalInt.empty();
    }

    /** Returns {@code FASHION_MNIST_DIR}, a folder holding the Fashion-MNIST IDX files, if set. */
    public Optional<Path> fashionMnistDir() {
        return Optional.ofNullable(values.get(FASHION_MNIST_DIR)).map(Path::of);
    }

    /** Returns {@code D2L_DATA_CACHE}, the folder for unpacked Fashion-MNIST files, if set. */
    public Optional<Path> dataCache() {
        return Optional.ofNullable(values.get(D2L_DATA_CACHE)).map(Path::of);
    }

    private OptionalLong positive(String name) {
        String raw = values.get(name);
        if (raw == null) {
            return OptionalLong.empty();
        }
        try {
            long value = Long.parseLong(raw);
            if (value > 0) {
                return OptionalLong.of(value);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(
                name
                        + " (environment variable, or -D"
                        + propertyName(name)
                        + ") must be a positive whole number, got \""
                        + raw
                        + "\"");
    }
}
