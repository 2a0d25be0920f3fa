// DJL's PyTorch engine (0.35.1 and 0.36.0), on the CPU: a number passed to an arithmetic operation that autograd records
// (NDArray.mul(Number), div(Number), pow(Number), ...) reaches the backward pass from freed memory. For an
// upstream report; with DJL alone (no project code):
//
//   java -cp "support-lib/target/lib/*" scripts/repro/DjlScalarUseAfterFree.java [tries]
//
// PtNDArray.mul(Number) does try (NDArray number = manager.create(n)) { return mul(number); }. On the CPU,
// create(n) makes the tensor with torch::from_blob over a direct ByteBuffer that only the Java object keeps
// alive (PtNDArray.dataRef); close() drops it. Autograd has saved that tensor for the backward pass (MulBackward0
// keeps `other`), so once the garbage collector frees the buffer and malloc hands its memory out again, the
// backward pass multiplies by whatever lies there. Here the collector runs and NaN-filled buffers take the
// memory between the forward and the backward pass; every try prints a wrong gradient (expected [3, 3, 3, 3]).
// In training the same happens whenever a collection falls between the two passes: NaN or wrong gradients at
// random steps, more often the longer the backward pass waits (a synchronised BatchNorm's statistics, a loss
// weight). DJL's own losses do it with a weight other than 1 (L2Loss's default 1/2). On a GPU create(n) copies
// the number to the device, and the fault does not arise.
//
// Workaround in this project: runtime.Scalars.of(like, value), a scalar cloned into PyTorch's own memory, for
// every number in a recorded computation.
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class DjlScalarUseAfterFree {
    public static void main(String[] a) throws Exception {
        System.setProperty("ai.djl.offline", "true");
        int tries = a.length > 0 ? Integer.parseInt(a[0]) : 10;
        int wrong = 0;
        try (NDManager m = NDManager.newBaseManager()) {
            for (int t = 1; t <= tries; t++) {
                NDArray x = m.ones(new Shape(4));
                x.setRequiresGradient(true);
                try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                    NDArray y = x.mul(3); // the 3 lives in a Java buffer that mul closes on return
                    System.gc();
                    Thread.sleep(50); // the cleaner frees the unreachable buffer
                    List<ByteBuffer> reuse = new ArrayList<>();
                    for (int i = 0; i < 1000; i++) {
                        reuse.add(ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putFloat(0, Float.NaN));
                    }
                    gc.backward(y.sum());
                }
                float[] g = x.getGradient().toFloatArray();
                boolean ok = Arrays.equals(g, new float[] {3, 3, 3, 3});
                wrong += ok ? 0 : 1;
                System.out.println("try " + t + ": gradient " + Arrays.toString(g) + (ok ? "" : "  (expected [3.0, 3.0, 3.0, 3.0])"));
            }
        }
        System.out.println("wrong gradients: " + wrong + " of " + tries);
    }
}
