package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import ai.djl.pytorch.jni.JniUtils;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.Test;


/**
 * Executor tasks run PyTorch with {@code spark.task.cpus} threads: given as many as the in-process
 * trainer uses, every kernel adds in the same order and the two ways agree bit for bit.
 */
class SparkThreadsTest {

    @Test
    void withAsManyThreadsPerTaskAsInProcessTheParametersAreBitIdentical() {
        Djl.engine(); // started, so that PyTorch can say its thread count
        int threads = JniUtils.getNumThreads(); // what PyTorch gives the in-process trainer on this thread
        JavaSparkContext sc = LocalSpark.start("SparkThreadsTest", threads, threads);
        try {
            List<Minibatch> batches = SyntheticData.minibatches(12, 32, 3);
            OptimizerFactory opt = OptimizerFactory.sgd(0.1f);
            try (SparkTrainer spark = SparkTrainer.builder(Models.LENET).setPartitions(2).optAveragingFrequency(3)
                    .optOptimizer(opt).optContext(sc).build(); ShardedData data = spark.distribute(batches)) {
                ParameterValues start = ParameterValues.of(spark.getNet());
                spark.trainEpoch(data, null);
                double diff = ParameterValues.of(spark.getNet()).maxAbsDifference(InProcess.train(start, batches, 2, 3, opt, 1, threads));
                System.out.printf("%d PyTorch thread(s) per task and in process: max |Spark - in-process| = %.2e%n",
                        threads, diff);
                assertEquals(0.0, diff);
            }
        } finally {
            sc.stop();
        }
    }
}
