package org.d2l.multigpu.earlystopping;

import ai.djl.training.dataset.RandomAccessDataset;
import java.util.List;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.loop.TrainingLoop;
import org.d2l.multigpu.parallel.DataParallelTrainer;

/**
 * Trains an {@link EpochTrainer} (a {@link DataParallelTrainer}, or a Spark trainer) epoch by epoch until
 * its {@link EarlyStoppingConfiguration} says stop, scoring the averaged model after every epoch, keeping
 * the best epoch's parameters in memory and restoring them into every replica at the end (Deeplearning4j's
 * {@code EarlyStoppingParallelTrainer} with an in-memory model saver).
 *
 * <p>DJL's {@code EarlyStoppingListener} is not used: it listens to DJL's own
 * {@code ai.djl.training.Trainer}, which this trainer is not; it only minimises (an accuracy monitor
 * gets the wrong answer); it compares each epoch with the previous one, not with the best; it
 * stops by throwing {@code EarlyStoppedException}; and it keeps no parameters. Its builder's names
 * ({@code optEpochPatience}, {@code optMaxDuration}) are kept.
 *
 * <p>When the trainer keeps checkpoints, each holds the rule's scores and the best epoch's parameters too,
 * so a resumed run stops where and as an unbroken one stops and restores the same best model; its time
 * limit counts the time the run had taken before it was broken, not the time in between.
 */
public final class EarlyStoppingParallelTrainer {

    private final EarlyStoppingConfiguration config;
    private final EpochTrainer trainer;

    /**
     * Early stopping of {@code trainer} over {@code trainSet}, evaluated on {@code testSet} after each
     * epoch (may be null unless the monitor is the test accuracy).
     */
    public EarlyStoppingParallelTrainer(EarlyStoppingConfiguration config, DataParallelTrainer trainer,
            RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        this(config, trainer == null || trainSet == null ? null : trainer.epochs(trainSet, testSet));
    }

    /** Early stopping of {@code trainer}, a trainer bound to its data (a Spark trainer's {@code epochs(...)}, say). */
    public EarlyStoppingParallelTrainer(EarlyStoppingConfiguration config, EpochTrainer trainer) {
        if (config == null || trainer == null) {
            throw new IllegalArgumentException(
                    "EarlyStoppingParallelTrainer needs a configuration and a trainer with its training set.");
        }
        if (!trainer.hasTestSet() && config.getMonitor().needsTestSet()) {
            throw new IllegalArgumentException("The monitored score is the " + config.getMonitor().name()
                    + " but there is no test set: give one, or monitor ScoreMonitor.trainLoss() or "
                    + "validationLoss(...).");
        }
        this.config = config;
        this.trainer = trainer;
    }

    /**
     * Trains until the configuration says stop, restores the best epoch's parameters into every
     * replica and returns the result; {@code listeners} hear of every epoch ({@code onFitStart} gets
     * the maximum number of epochs, or 0 when there is none). A {@link TrainingInterruptedException}
     * (or any other failure) propagates with the model as the trainer left it, and the kept
     * parameters are freed.
     */
    public EarlyStoppingResult fit(EpochListener... listeners) {
        StoppingRule rule = new StoppingRule(config);
        ParameterSnapshot[] best = new ParameterSnapshot[1];
        try {
            List<EpochMetrics> history = TrainingLoop.run(trainer, config.getMaxEpochs(), m -> {
                StoppingRule.Verdict verdict = rule.observe(config.getMonitor().score(trainer, m));
                if (verdict.newBest()) {
                    if (best[0] != null) {
                        best[0].close();
                        best[0] = null;
                    }
                    best[0] = trainer.snapshot();
                }
                return verdict.stop();
            }, new StoppingState(config, rule, trainer, best), listeners);
            if (best[0] != null) {
                trainer.restore(best[0]);
            }
            StoppingRule.Verdict last = rule.last();
            return new EarlyStoppingResult(last.reason(), last.message(), config.getMonitor().name(),
                    rule.bestEpoch(), rule.bestScore(), rule.scores(), history, rule.elapsed());
        } finally {
            if (best[0] != null) {
                best[0].close();
            }
        }
    }
}
