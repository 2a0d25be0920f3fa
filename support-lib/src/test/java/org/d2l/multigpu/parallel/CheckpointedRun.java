package org.d2l.multigpu.parallel;

import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.nio.file.Files;
import java.nio.file.Path;
import org.d2l.multigpu.checkpoint.ParameterFile;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;

/**
 * The child JVM of {@link KilledRunTest}: trains LeNet on two virtual replicas with momentum for a number
 * of epochs with checkpoints in a folder, printing every step and checkpoint note, and writes the final
 * parameters (DJL's parameter file) to a file. Arguments: folder, epochs, weight seed, output file.
 */
public final class CheckpointedRun {

    private CheckpointedRun() {}

    /** Runs it. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int epochs = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        try (TrainerFixture f = new TrainerFixture()) {
            ResumeFixture r = new ResumeFixture(f);
            DataParallelTrainer t = r.trainer(2, seed, dir, b -> b.optOptimizer(
                    Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build()));
            t.fit(r.train, r.test, epochs, new EpochListener() {
                @Override
                public void onStep(int epoch, long examplesSeen, double meanLoss) {
                    System.out.println("step " + epoch + " " + examplesSeen);
                    System.out.flush();
                }

                @Override
                public void onEpoch(EpochMetrics metrics) {
                    System.out.println("epoch " + metrics.epoch());
                    System.out.flush();
                }

                @Override
                public void onCheckpointNote(String message) {
                    System.out.println(message);
                    System.out.flush();
                }
            });
            Files.write(Path.of(args[3]), ParameterFile.of(t.getNet()));
            System.out.println("done");
        }
    }
}
