package org.d2l.multigpu.loop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.CheckpointStore;
import org.d2l.multigpu.checkpoint.CheckpointWriter;
import org.d2l.multigpu.checkpoint.Stateful;

/**
 * The checkpoints of one run of {@link TrainingLoop}: the resume before the first epoch, a checkpoint
 * after every epoch (the trainer's state and the caller's), nothing at all when the trainer keeps none.
 */
final class RunCheckpoints implements AutoCloseable {

    private static final String RUN = "run.properties";
    private static final String LOOP = "loop.properties";

    private final EpochTrainer trainer;
    private final CheckpointPolicy settings;
    private final List<Stateful> parts = new ArrayList<>();
    private final CheckpointWriter writer;
    private boolean stopped;

    private RunCheckpoints(EpochTrainer trainer, CheckpointPolicy settings, Stateful caller) {
        this.trainer = trainer;
        this.settings = settings;
        if (settings != null) {
            Stateful state = trainer.state();
            if (state == null) {
                throw new IllegalStateException(trainer.getClass().getName() + " cannot keep checkpoints.");
            }
            settings.checkWritable();
            parts.add(state);
            if (caller != null) {
                parts.add(caller);
            }
        }
        this.writer = settings == null ? null : new CheckpointWriter(settings);
    }

    /** The checkpoints of a run of {@code trainer} with the caller's own state {@code caller} (may be null). */
    static RunCheckpoints of(EpochTrainer trainer, Stateful caller) {
        return new RunCheckpoints(trainer, trainer.checkpoints(), caller);
    }

    /**
     * Restores the newest valid checkpoint of this run's epochs (after the trainer's finished ones, up to
     * {@code maxEpochs} more; 0: any) and returns the run's epochs it holds, told to {@code events}; with a
     * fresh start, removes an earlier run's checkpoints instead.
     */
    List<EpochMetrics> resume(int maxEpochs, EpochListener events) {
        if (settings == null) {
            return new ArrayList<>();
        }
        int done = trainer.getHistory().size();
        CheckpointStore store = writer.store();
        if (!settings.resumes()) {
            int removed = done == 0 ? store.clear() : 0;
            if (removed > 0) {
                events.onCheckpointNote("Starting afresh (resume off): removed " + removed
                        + " checkpoint(s) of an earlier run from " + settings.dir() + ".");
            }
            return new ArrayList<>();
        }
        Checkpoint c = store.newestValid(done, maxEpochs == 0 ? 0 : done + maxEpochs, events::onCheckpointNote);
        if (c == null) {
            List<Integer> there = store.epochs();
            if (!there.isEmpty()) {
                events.onCheckpointNote("No usable checkpoint of epochs " + (done + 1) + " to "
                        + (maxEpochs == 0 ? "any" : String.valueOf(done + maxEpochs)) + " in " + settings.dir()
                        + " (it holds epochs " + there + "): training from epoch " + (done + 1)
                        + "; the checkpoints of later epochs go when its own is written.");
            }
            return new ArrayList<>();
        }
        Checkpoint.checkSameRun(c.text(RUN), identity(), store.path(c.epoch()).toString());
        for (Stateful p : parts) {
            p.load(c);
        }
        stopped = Boolean.parseBoolean(c.text(LOOP).get("stopped"));
        List<EpochMetrics> history = trainer.getHistory();
        List<EpochMetrics> restored = new ArrayList<>(history.subList(done, history.size()));
        String epochs = done + 1 == c.epoch() ? "epoch " + c.epoch() : "epochs " + (done + 1) + " to " + c.epoch();
        events.onCheckpointNote(String.format(Locale.ROOT, "Resumed from %s: %s done before%s.",
                store.path(c.epoch()), epochs,
                stopped ? ", where the run had stopped" : maxEpochs > 0 && restored.size() >= maxEpochs
                        ? ", all of this run's" : ", training on from there"));
        restored.forEach(events::onEpoch);
        return restored;
    }

    /** Whether the resumed run had already stopped (early stopping ended it). */
    boolean stopped() {
        return stopped;
    }

    /** Takes a checkpoint of the state after the epoch just finished ({@code stop}: the run ends with it). */
    void save(boolean stop) {
        if (settings == null) {
            return;
        }
        Checkpoint c = new Checkpoint(trainer.getHistory().size());
        c.putText(RUN, identity());
        c.putText(LOOP, Map.of("stopped", Boolean.toString(stop)));
        for (Stateful p : parts) {
            p.save(c);
        }
        writer.write(c);
    }

    private Map<String, String> identity() {
        Map<String, String> all = new LinkedHashMap<>();
        parts.forEach(p -> all.putAll(p.identity()));
        return all;
    }

    /** Waits for the last checkpoint to be written. */
    @Override
    public void close() {
        if (writer != null) {
            writer.close();
        }
    }
}
