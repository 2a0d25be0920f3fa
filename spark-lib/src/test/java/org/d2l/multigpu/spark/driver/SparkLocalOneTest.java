package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.List;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.Test;


/** The same job on local[1]: one executor thread runs the partitions one after another. */
class SparkLocalOneTest {

    @Test
    void twoPartitionsOnLocalOneEqualInProcessAveragingAndTheTrainerStopsItsOwnContext() {
        Djl.setup();
        SparkTrainer trainer = SparkTrainer.builder(Models.LENET).optMaster("local[1]").setPartitions(2)
                .optAveragingFrequency(2).optOptimizer(OptimizerFactory.sgd(0.3f)).build();
        try (SparkTrainer spark = trainer) {
            assertEquals("local[1]", spark.getContext().master());
            SparkTrainerTest.assertSameAsInProcess(spark.getContext(), 2, 2, 8, OptimizerFactory.sgd(0.3f));
            List<Minibatch> batches = SyntheticData.minibatches(8, 8, 5);
            try (ShardedData data = spark.distribute(batches)) {
                List<EpochMetrics> history = spark.fit(data, null, 2);
                assertEquals(2, history.size());
                assertEquals(64, history.get(0).examplesPerSecond() * history.get(0).seconds(), 1e-6);
                assertEquals(2, history.get(1).syncs()); // 4 local steps per partition at frequency 2
                assertTrue(history.get(1).trainLoss() < history.get(0).trainLoss(),
                        "loss " + history.get(0).trainLoss() + " then " + history.get(1).trainLoss());
            }
        }
        assertTrue(trainer.getContext().sc().isStopped(), "close() stops the context the trainer started");
    }
}
