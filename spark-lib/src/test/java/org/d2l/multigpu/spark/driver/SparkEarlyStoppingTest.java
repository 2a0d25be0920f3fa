package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.earlystopping.EarlyStoppingConfiguration;
import org.d2l.multigpu.earlystopping.EarlyStoppingParallelTrainer;
import org.d2l.multigpu.earlystopping.EarlyStoppingResult;
import org.d2l.multigpu.earlystopping.ScoreMonitor;
import org.d2l.multigpu.earlystopping.StopReason;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;


/** Early stopping drives both Spark trainers through the same epoch loop as the in-process trainer. */
class SparkEarlyStoppingTest {

    private static JavaSparkContext sc;

    @BeforeAll
    static void startSpark() {
        sc = LocalSpark.start("SparkEarlyStoppingTest");
    }

    @AfterAll
    static void stopSpark() {
        sc.stop();
    }

    @Test
    void sparkTrainingStopsWhenTheScoreStopsImprovingAndKeepsTheBestEpochsModel() {
        // A score that is best in epoch 2 and no better after it: patience 2 stops after epoch 4.
        double[] scores = {3, 1, 2, 2, 2, 2};
        Map<Integer, ParameterValues> seen = new HashMap<>();
        ScoreMonitor fixed = ScoreMonitor.lowerIsBetter("fixed score", (t, m) -> {
            seen.put(m.epoch(), ParameterValues.of(t.getNet()));
            return scores[m.epoch() - 1];
        });
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optMonitor(fixed)
                .optMaxEpochs(scores.length).optEpochPatience(2).build();
        try (SparkTrainer spark = SparkTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optContext(sc).build()) {
            ShardedData data = spark.distribute(SyntheticData.minibatches(4, 8, 11));
            EarlyStoppingResult r = new EarlyStoppingParallelTrainer(config, spark.epochs(data, null)).fit();
            assertEquals(StopReason.NO_IMPROVEMENT, r.reason(), r.summary());
            assertEquals(4, r.totalEpochs());
            assertEquals(2, r.bestEpoch());
            assertTrue(seen.get(4).maxAbsDifference(seen.get(2)) > 0, "training moved the model after epoch 2");
            assertEquals(0, ParameterValues.of(spark.getNet()).maxAbsDifference(seen.get(2)),
                    "the driver's model is the best epoch's again");
        }
    }

    @Test
    void ringAllreduceTrainingStopsWhenTheScoreStopsImprovingAndKeepsTheBestEpochsModel() {
        double[] scores = {3, 1, 2, 2, 2};
        Map<Integer, ParameterValues> seen = new HashMap<>();
        ScoreMonitor fixed = ScoreMonitor.lowerIsBetter("fixed score", (t, m) -> {
            seen.put(m.epoch(), ParameterValues.of(t.getNet()));
            return scores[m.epoch() - 1];
        });
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optMonitor(fixed)
                .optMaxEpochs(scores.length).optEpochPatience(2).build();
        try (AllreduceTrainer ring = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optContext(sc).build();
                SplitData data = ring.distribute(SyntheticData.minibatches(2, 8, 11))) {
            EarlyStoppingResult r = new EarlyStoppingParallelTrainer(config, ring.epochs(data, null)).fit();
            assertEquals(StopReason.NO_IMPROVEMENT, r.reason(), r.summary());
            assertEquals(4, r.totalEpochs());
            assertEquals(2, r.bestEpoch());
            assertTrue(seen.get(4).maxAbsDifference(seen.get(2)) > 0, "training moved the model after epoch 2");
            assertEquals(0, ParameterValues.of(ring.getNet()).maxAbsDifference(seen.get(2)),
                    "the driver's model is the best epoch's again");
        }
    }
}
