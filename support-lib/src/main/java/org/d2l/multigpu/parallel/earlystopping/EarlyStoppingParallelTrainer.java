package org.d2l.multigpu.parallel.earlystopping;

import ai.djl.training.dataset.RandomAccessDataset;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.EpochListener;
import org.d2l.multigpu.parallel.EpochMetrics;
import org.d2l.multigpu.parallel.ParameterSnapshot;
import org.d2l.multigpu.parallel.TrainingInterruptedException;

/**
 * Trains a {@link DataParallelTrainer} epoch by epoch until its {@link EarlyStoppingConfiguration}
 * says stop, scoring the averaged model after every epoch, keeping the best epoch's parameters in
 * memory and restoring them into every replica at the end (Deeplearning4j's
 * {@code EarlyStoppingParallelTrainer} with an in-memory model saver).
 *
 * <p>DJL 0.35.1's {@code EarlyStoppingListener} is not used: it listens to DJL's own
 * {@code ai.djl.training.Trainer}, which this trainer is not; it only minimises (an accuracy monitor
 * gets the wrong answer); it compares each epoch with the previous one, not with the best; it
 * stops by throwing {@code EarlyStoppedException}; and it keeps no parameters. Its builder's names
 * ({@code optEpochPatience}, {@code optMaxDuration}) are kept.
 */
public final class EarlyStoppingParallelTrainer {

    private final EarlyStoppingConfiguration config;
    private final DataParallelTrainer trainer;
    private final RandomAccessDataset trainSet;
    private final RandomAccessDataset testSet;

    /**
     * Early stopping of {@code trainer} over {@code trainSet}, evaluated on {@code testSet} after each
     * epoch (may be null unless the monitor is the test accuracy).
     */
    public EarlyStoppingParallelTrainer(EarlyStoppingConfiguration config, DataParallelTrainer trainer,
            RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        if (config == null || trainer == null || trainSet == null) {
            throw new IllegalArgumentException(
                    "EarlyStoppingParallelTrainer needs a configuration, a DataParallelTrainer and a training set.");
        }
        if (testSet == null && config.getMonitor().needsTestSet()) {
            throw new IllegalArgumentException("The monitored score is the " + config.getMonitor().name()
                    + " but there is no test set: give one, or monitor ScoreMonitor.trainLoss() or "
                    + "validationLoss(...).");
        }
        this.config = config;
        this.trainer = trainer;
        this.trainSet = trainSet;
        this.testSet = testSet;
    }

    /**
     * Trains until the configuration says stop, restores the best epoch's parameters into every
     * replica and returns the result; {@code listeners} hear of every epoch ({@code onFitStart} gets
     * the maximum number of epochs, or 0 when there is none). A {@link TrainingInterruptedException}
     * (or any other failure) propagates with the model as the trainer left it, and the kept
     * parameters are freed.
     */
    public EarlyStoppingResult fit(EpochListener... listeners) {
        for (EpochListener l : listeners) {
            l.onFitStart(config.getMaxEpochs());
        }
        StoppingRule rule = new StoppingRule(config);
        List<EpochMetrics> history = new ArrayList<>();
        ParameterSnapshot best = null;
        try {
            StoppingRule.Verdict verdict;
            do {
                EpochMetrics m = trainer.trainEpoch(trainSet, testSet);
                history.add(m);
                for (EpochListener l : listeners) {
                    l.onEpoch(m);
                }
                verdict = rule.observe(config.getMonitor().score(trainer, m));
                if (verdict.newBest()) {
                    if (best != null) {
                        best.close();
                        best = null;
                    }
                    best = trainer.snapshot();
                }
            } while (!verdict.stop());
            if (best != null) {
                trainer.restore(best);
            }
            return new EarlyStoppingResult(verdict.reason(), verdict.message(), config.getMonitor().name(),
                    rule.bestEpoch(), rule.bestScore(), rule.scores(), history, rule.elapsed());
        } finally {
            if (best != null) {
                best.close();
            }
        }
    }
}
