// The Zen 5 NaN reproduction with DJL alone (no project code), for an upstream report:
//
//   java -cp "support-lib/target/lib/*" scripts/repro/DjlConvNan.java [batch runs steps tuned|plain]
//
// Trains R fresh LeNets (DJL's own blocks) for S steps each with SGD at lr 0.1 on random images and labels,
// and counts the runs whose loss is not finite. "tuned" (the default) first sets what the project's
// runtime.NativeMemory sets before PyTorch starts: glibc's mmap threshold 32 MiB, trim threshold 64 MiB,
// top pad 32 MiB (mallopt), and THP_MEM_ALLOC_ENABLE=1; "plain" leaves glibc and libtorch as they are.
// Set ONEDNN_MAX_CPU_ISA in the environment to try oneDNN's instruction sets. Needs DJL 0.35.1 or 0.36.0, its PyTorch
// engine and the PyTorch 2.7.1 CPU natives (all in support-lib/target/lib after the project's build), and JNA.
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import com.sun.jna.NativeLibrary;

public class DjlConvNan {
    public static void main(String[] a) {
        int batch = a.length > 0 ? Integer.parseInt(a[0]) : 8;
        int runs = a.length > 1 ? Integer.parseInt(a[1]) : 20;
        int steps = a.length > 2 ? Integer.parseInt(a[2]) : 20;
        boolean tuned = a.length < 4 || a[3].equals("tuned");
        System.setProperty("ai.djl.offline", "true");
        if (tuned) {
            NativeLibrary c = NativeLibrary.getInstance("c");
            c.getFunction("mallopt").invokeInt(new Object[] {-3, 32 << 20}); // M_MMAP_THRESHOLD
            c.getFunction("mallopt").invokeInt(new Object[] {-1, 64 << 20}); // M_TRIM_THRESHOLD
            c.getFunction("mallopt").invokeInt(new Object[] {-2, 32 << 20}); // M_TOP_PAD
            c.getFunction("setenv").invokeInt(new Object[] {"THP_MEM_ALLOC_ENABLE", "1", 1});
        }
        int bad = 0;
        for (int r = 0; r < runs; r++) {
            try (Model model = Model.newInstance("lenet")) {
                model.setBlock(new SequentialBlock()
                        .add(Conv2d.builder().setFilters(20).setKernelShape(new Shape(3, 3)).build()).add(Activation::relu)
                        .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                        .add(Conv2d.builder().setFilters(50).setKernelShape(new Shape(5, 5)).build()).add(Activation::relu)
                        .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2))).add(Blocks.batchFlattenBlock())
                        .add(Linear.builder().setUnits(128).build()).add(Activation::relu)
                        .add(Linear.builder().setUnits(10).build()));
                DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                        .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build());
                try (Trainer t = model.newTrainer(config)) {
                    t.initialize(new Shape(batch, 1, 28, 28));
                    for (int s = 1; s <= steps; s++) {
                        try (NDManager m = t.getManager().newSubManager()) {
                            NDArray x = m.randomUniform(0, 1, new Shape(batch, 1, 28, 28));
                            NDArray y = m.randomInteger(0, 10, new Shape(batch), DataType.INT32).toType(DataType.FLOAT32, false);
                            float loss;
                            try (GradientCollector gc = t.newGradientCollector()) {
                                NDArray l = t.getLoss().evaluate(new NDList(y), t.forward(new NDList(x)));
                                gc.backward(l);
                                loss = l.getFloat();
                            }
                            t.step();
                            if (!Float.isFinite(loss)) {
                                System.out.println("run " + (r + 1) + ": loss " + loss + " at step " + s);
                                bad++;
                                break;
                            }
                        }
                    }
                }
            }
        }
        System.out.printf("batch %d, %s allocator, ONEDNN_MAX_CPU_ISA=%s: loss not finite in %d of %d runs of %d steps%n",
                batch, tuned ? "tuned" : "default", System.getenv().getOrDefault("ONEDNN_MAX_CPU_ISA", "unset"), bad, runs, steps);
    }
}
