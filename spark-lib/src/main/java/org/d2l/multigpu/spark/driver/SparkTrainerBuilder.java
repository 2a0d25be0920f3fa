package org.d2l.multigpu.spark.driver;

import ai.djl.training.initializer.Initializer;
import java.nio.file.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;

/**
 * The settings both Spark trainers share: the network, the optimizer, the partitions, where Spark runs,
 * the driver's initialisation, the progress bar and the checkpoints.
 *
 * @param <B> the trainer's own builder, which every setting returns
 */
public abstract class SparkTrainerBuilder<B extends SparkTrainerBuilder<B>> {

    final ModelFactory model;
    OptimizerFactory optimizer;
    int partitions;
    String master;
    JavaSparkContext context;
    Initializer initializer = Init.pytorchLike();
    boolean progress;
    CheckpointPolicy checkpoints;

    SparkTrainerBuilder(ModelFactory model, String trainer) {
        if (model == null) {
            throw new IllegalArgumentException(trainer + " needs a ModelFactory, for example Models.LENET.");
        }
        this.model = model;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The number of partitions, one task and replica each (default: k of {@code local[k]}, or Spark's default parallelism). */
    public B setPartitions(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("The number of partitions must be at least 1, got " + partitions + ".");
        }
        this.partitions = partitions;
        return self();
    }

    /** The optimizer every replica uses, for example {@code OptimizerFactory.sgd(0.1f)}. */
    public B optOptimizer(OptimizerFactory optimizer) {
        this.optimizer = optimizer;
        return self();
    }

    /**
     * The Spark master URL: {@code local[k]} (default, k = partitions, unless {@code spark-submit}
     * set {@code spark.master}), {@code spark://host:7077}, {@code yarn}, {@code k8s://https://host:port}.
     */
    public B optMaster(String master) {
        this.master = master;
        return self();
    }

    /** Runs on an existing context (for example the one {@code spark-submit} configured); close() then leaves it running. */
    public B optContext(JavaSparkContext context) {
        this.context = context;
        return self();
    }

    /** The weight initialisation of the driver's network (default {@link Init#pytorchLike()}). */
    public B optInitializer(Initializer initializer) {
        this.initializer = initializer;
        return self();
    }

    /** Shows a progress bar per epoch when {@code progress} is true (default off). */
    public B optProgress(boolean progress) {
        this.progress = progress;
        return self();
    }

    /**
     * Keeps checkpoints of the driver's state in {@code dir} after every epoch ({@link CheckpointPolicy#in}); a
     * run resumes from the newest valid one there, unless {@code optResume(false)}.
     */
    public B optCheckpoints(Path dir) {
        this.checkpoints = CheckpointPolicy.in(dir);
        return self();
    }

    /** Whether a run resumes from the checkpoints (default true) or starts afresh; needs {@link #optCheckpoints}. */
    public B optResume(boolean resume) {
        if (checkpoints == null) {
            throw new IllegalArgumentException("optResume(...) is a setting of checkpoints: call optCheckpoints(dir) first.");
        }
        this.checkpoints = checkpoints.resume(resume);
        return self();
    }

    /**
     * Refuses, before Spark starts, a missing optimizer, one whose state cannot be carried between tasks,
     * and a checkpoint folder that cannot be written.
     */
    void validate() {
        if (optimizer == null) {
            throw new IllegalArgumentException("No optimizer set: call optOptimizer(OptimizerFactory.sgd(lr)).");
        }
        Djl.setup();
        OptimizerState.of(optimizer.newOptimizer());
        if (checkpoints != null) {
            checkpoints.checkWritable();
        }
    }
}
