// Synchronised BatchNorm's NaN gradient, not fixed yet: after some steps one backward pass of a
// synchronised run gives NaN gradients from a finite loss, where the same run without synchronisation trains on.
//
//   java --enable-native-access=ALL-UNNAMED -cp "support-lib/target/d2l-multigpu.jar:support-lib/target/lib/*" \
//     scripts/repro/SyncBatchNormNan.java [true|false] [steps]
//
// ResNet-18 of width 16 on 2 virtual replicas, SGD at lr 0.1, Fashion-MNIST minibatches of 256 in order, with
// optSyncBatchNorm(true) ("true", the default) or plain BatchNorm ("false"); prints every step's training loss.
// On a 2-core AMD EPYC Zen 3 the synchronised run stopped with a NaN loss at step 11 to 14 (its parameters NaN after
// one update), also with OMP_NUM_THREADS=1, ONEDNN_MAX_CPU_ISA=SSE41 or D2L_MALLOC_TUNING=false; the plain run
// trained 40 steps. One replica with SyncBatchNorm fails too (step 9): the NaN comes from SyncBatchNorm's own
// backward, first in the input gradient of the BatchNorm after stage 4's second residual block's first conv.
// Needs the project's build (mvn -o package -DskipTests) and the data (scripts/setup.sh).
import ai.djl.engine.Engine;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.training.dataset.Batch;
import ai.djl.ndarray.NDManager;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.models.SyncBatchNorm;
import org.d2l.multigpu.parallel.*;
import org.d2l.multigpu.runtime.Djl;

public class SyncBatchNormNan {
    public static void main(String[] a) throws Exception {
        boolean sync = a.length < 1 || Boolean.parseBoolean(a[0]);
        int steps = a.length < 2 ? 40 : Integer.parseInt(a[1]);
        Djl.setup();
        FashionMnistData data = FashionMnistData.builder().batchSize(256).build();
        Engine.getInstance().setRandomSeed(42);
        Block net = ResNet.resnet18(10, 1, 16);
        try (NDManager m = NDManager.newBaseManager();
             DataParallelTrainer t = DataParallelTrainer.builder(sync ? SyncBatchNorm.convert(net) : net)
                .setDevices(Devices.of(2)).optInputShape(new Shape(1, 1, 28, 28))
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build()).optSyncBatchNorm(sync).build()) {
            int s = 0;
            long t0 = System.nanoTime();
            for (Batch b : data.train().getData(m)) {
                try (b) {
                    StepResult r = t.trainStep(b.getData().head(), b.getLabels().head()); System.out.printf("step %d loss %.4f%n", s + 1, r.lossSum() / r.examples());
                }
                s++;
                if (s % 20 == 0) System.out.printf("step %d ok, %.1f s%n", s, (System.nanoTime() - t0) / 1e9);
                if (s >= steps) break;
            }
            System.out.println("finished " + s + " steps");
        }
    }
}
