package org.d2l.multigpu.checkpoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a training run keeps its checkpoints and how (a trainer builder's {@code optCheckpoints}): after
 * every epoch a checkpoint is written to {@code dir}, the last {@link #keepLast} are kept, and a new run
 * resumes from the newest valid one unless {@link #resume(boolean) resume(false)} asks for a fresh start,
 * which removes the old run's checkpoints from {@code dir} when its first epoch begins.
 */
public final class CheckpointPolicy {

    /** The number of checkpoints kept by default. */
    public static final int DEFAULT_KEEP = 3;

    private final Path dir;
    private final int keep;
    private final boolean resume;
    private final boolean background;

    private CheckpointPolicy(Path dir, int keep, boolean resume, boolean background) {
        if (dir == null) {
            throw new IllegalArgumentException("The checkpoint directory is null: give a folder such as "
                    + "Path.of(\"build/checkpoints/my-run\").");
        }
        if (keep < 1) {
            throw new IllegalArgumentException("At least one checkpoint must be kept, got keepLast(" + keep + ").");
        }
        this.dir = dir;
        this.keep = keep;
        this.resume = resume;
        this.background = background;
    }

    /** Checkpoints in {@code dir}: the last {@value #DEFAULT_KEEP} kept, resumed from, written on a background thread. */
    public static CheckpointPolicy in(Path dir) {
        return new CheckpointPolicy(dir, DEFAULT_KEEP, true, true);
    }

    /** The same, keeping the last {@code n} checkpoints (at least 1). */
    public CheckpointPolicy keepLast(int n) {
        return new CheckpointPolicy(dir, n, resume, background);
    }

    /** The same, resuming from the newest valid checkpoint ({@code true}, the default) or starting afresh. */
    public CheckpointPolicy resume(boolean resume) {
        return new CheckpointPolicy(dir, keep, resume, background);
    }

    /**
     * The same, writing files on a background thread ({@code true}, the default: the state is copied when
     * the epoch ends, so the next epoch's updates cannot race the write) or on the training thread.
     */
    public CheckpointPolicy background(boolean background) {
        return new CheckpointPolicy(dir, keep, resume, background);
    }

    /** The directory that holds the checkpoints. */
    public Path dir() {
        return dir;
    }

    /** How many checkpoints are kept. */
    public int keep() {
        return keep;
    }

    /** Whether a run resumes from the newest valid checkpoint in the directory. */
    public boolean resumes() {
        return resume;
    }

    /** Whether checkpoint files are written on a background thread. */
    public boolean inBackground() {
        return background;
    }

    /** Creates the directory and checks that a file can be written there; fails with what to do, before any training. */
    public void checkWritable() {
        try {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException ex) {
            throw new IllegalArgumentException("Cannot write checkpoints to " + dir.toAbsolutePath() + " ("
                    + ex + "): give optCheckpoints(...) a folder you may write to, or leave checkpoints out.", ex);
        }
    }

    @Override
    public String toString() {
        return "checkpoints in " + dir + " (last " + keep + " kept" + (resume ? ", resumed" : ", fresh start") + ")";
    }
}
