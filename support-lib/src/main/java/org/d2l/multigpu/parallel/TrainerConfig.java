package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.initializer.Initializer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import java.util.List;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.precision.LossScaler;

/**
 * A {@link DataParallelTrainer}'s settings as its builder checked them, fixed for the trainer's life (what a run
 * changes, the steps, history and loss scale, the trainer keeps); {@code concurrent} null means one thread per
 * distinct device, {@code inputShape}, {@code lossScaler}, {@code checkpoints} and {@code compressor} may be null.
 */
record TrainerConfig(Block net, List<Device> devices, Loss loss, Optimizer optimizer, ReplicaSync sync,
        Initializer initializer, Shape inputShape, Boolean concurrent, boolean progress, boolean prefetch,
        DataType dataType, LossScaler lossScaler, boolean masterWeights, CheckpointPolicy checkpoints,
        long shuffleSeed, boolean syncBatchNorm, int accumulate, Collective collective, Compressor compressor) {

    TrainerConfig {
        devices = List.copyOf(devices);
    }
}
