package org.d2l.multigpu.earlystopping;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.loss.Loss;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * The score that early stopping watches after every epoch, computed on the averaged model, and
 * whether higher or lower is better.
 */
public final class ScoreMonitor {

    /** Computes an epoch's score from the trainer (whose replicas hold the averaged model) and the epoch's metrics. */
    @FunctionalInterface
    public interface EpochScore {
        /** The score of the epoch that has just finished. */
        double score(EpochTrainer trainer, EpochMetrics metrics);
    }

    private final String name;
    private final boolean higherIsBetter;
    private final boolean needsTestSet;
    private final EpochScore score;

    private ScoreMonitor(String name, boolean higherIsBetter, boolean needsTestSet, EpochScore score) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("A score monitor needs a name (for example \"validation loss\").");
        }
        if (score == null) {
            throw new IllegalArgumentException("The score monitor \"" + name + "\" needs a score function.");
        }
        this.name = name;
        this.higherIsBetter = higherIsBetter;
        this.needsTestSet = needsTestSet;
        this.score = score;
    }

    /** The trainer's test accuracy after each epoch (higher is better); needs a test set. */
    public static ScoreMonitor testAccuracy() {
        return new ScoreMonitor("test accuracy", true, true, (t, m) -> m.testAccuracy());
    }

    /** The epoch's mean training loss (lower is better). */
    public static ScoreMonitor trainLoss() {
        return new ScoreMonitor("training loss", false, false, (t, m) -> m.trainLoss());
    }

    /** The mean of {@code loss} over {@code validationSet} on the averaged model (lower is better). */
    public static ScoreMonitor validationLoss(RandomAccessDataset validationSet, Loss loss) {
        if (validationSet == null || loss == null) {
            throw new IllegalArgumentException("validationLoss needs a validation data set and a loss.");
        }
        return new ScoreMonitor("validation loss", false, false, (t, m) -> meanLoss(t.getNet(), validationSet, loss));
    }

    /** The accuracy of the averaged model on {@code validationSet}, split over the trainer's devices (higher is better). */
    public static ScoreMonitor validationAccuracy(RandomAccessDataset validationSet) {
        if (validationSet == null) {
            throw new IllegalArgumentException("validationAccuracy needs a validation data set.");
        }
        return new ScoreMonitor("validation accuracy", true, false, (t, m) -> accuracy(t, validationSet));
    }

    /** The accuracy of {@code trainer}'s model on {@code data}. */
    static double accuracy(EpochTrainer trainer, RandomAccessDataset data) {
        try (NoGrad off = NoGrad.scope(); NDManager manager = NDManager.newBaseManager(trainer.getDevices().get(0))) {
            return Accuracy.evaluateAccuracyGpus(trainer.getNet(), Batches.of(data, manager, "validation"),
                    trainer.getDevices());
        }
    }

    /** A score of the caller's own, named {@code name}, for which higher is better. */
    public static ScoreMonitor higherIsBetter(String name, EpochScore score) {
        return new ScoreMonitor(name, true, false, score);
    }

    /** A score of the caller's own, named {@code name}, for which lower is better. */
    public static ScoreMonitor lowerIsBetter(String name, EpochScore score) {
        return new ScoreMonitor(name, false, false, score);
    }

    /** The score's name, as the result's messages use it. */
    public String name() {
        return name;
    }

    /** Whether a higher score is better (accuracy) rather than a lower one (loss). */
    public boolean higherIsBetter() {
        return higherIsBetter;
    }

    /** Whether the score is read from the test set's evaluation, so the run needs a test set. */
    public boolean needsTestSet() {
        return needsTestSet;
    }

    /** The score of the epoch that has just finished. */
    public double score(EpochTrainer trainer, EpochMetrics metrics) {
        return score.score(trainer, metrics);
    }

    /** The mean loss of {@code net} (its own parameters, replica 0's) over {@code data}, in inference mode. */
    static double meanLoss(Block net, RandomAccessDataset data, Loss loss) {
        double sum = 0;
        long n = 0;
        try (NoGrad off = NoGrad.scope();
                NDManager manager = NDManager.newBaseManager(net.getParameters().valueAt(0).getArray().getDevice())) {
            ReplicaStore store = ReplicaStore.of(net, manager);
            for (Batch batch : Batches.of(data, manager, "validation")) {
                try (batch; NDManager step = manager.newSubManager()) {
                    NDArray x = batch.getData().head().toDevice(manager.getDevice(), true);
                    NDArray y = batch.getLabels().head().toDevice(manager.getDevice(), true);
                    step.tempAttachAll(x, y);
                    NDArray yHat = net.forward(store, new NDList(x), false).head();
                    long size = x.getShape().get(0);
                    sum += loss.evaluate(new NDList(y), new NDList(yHat)).getFloat() * size;
                    n += size;
                }
            }
        }
        if (n == 0) {
            throw new IllegalArgumentException("The validation set is empty: give it at least one example.");
        }
        return sum / n;
    }

    @Override
    public String toString() {
        return name + (higherIsBetter ? " (higher is better)" : " (lower is better)");
    }
}
