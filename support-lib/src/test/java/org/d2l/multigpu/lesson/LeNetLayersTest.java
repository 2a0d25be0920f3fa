package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.NoGrad;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LeNetLayersTest {

    private NDManager manager;

    @BeforeEach
    void setUp() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
        Engine.getInstance().setRandomSeed(7);
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    private NDArray images(int n) {
        return manager.randomUniform(0, 1, new Shape(n, 1, 28, 28));
    }

    private NDArray labels(int n) {
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            y[i] = i % 10;
        }
        return manager.create(y);
    }

    private List<NDArray> flat(List<NDArray> params) {
        List<NDArray> f = new ArrayList<>();
        for (int l = 0; l < LeNetLayers.count(); l++) {
            f.add(LeNetLayers.flatten(params, l));
        }
        return f;
    }

    @Test
    void layerSizesAddUpToLenetsParameters() {
        long total = LeNet.initParams(manager).stream().mapToLong(NDArray::size).sum();
        assertArrayEquals(new long[] {200, 25050, 102528, 1290}, LeNetLayers.sizes());
        assertEquals(total, java.util.Arrays.stream(LeNetLayers.sizes()).sum());
    }

    @Test
    void forwardLayerByLayerGivesLenetsLogits() {
        List<NDArray> params = LeNet.initParams(manager);
        NDArray x = images(8);
        NDArray h = x;
        List<NDArray> w = flat(params);
        for (int l = 0; l < LeNetLayers.count(); l++) {
            h = LeNetLayers.forward(l, h, w.get(l));
        }
        // The same kernels on the same values: float32 rounding at most, of logits below 1.
        assertTrue(h.sub(LeNet.lenet(x, params)).abs().max().getFloat() <= 1e-6f);
    }

    @Test
    void backwardLayerByLayerGivesTheWholeNetworksGradients() {
        List<NDArray> params = LeNet.initParams(manager);
        List<NDArray> whole = new ArrayList<>();
        for (NDArray p : params) {
            NDArray c = p.duplicate();
            c.setRequiresGradient(true);
            whole.add(c);
        }
        NDArray x = images(16);
        NDArray y = labels(16);
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            gc.backward(Loss.softmaxCrossEntropyLoss().evaluate(new NDList(y), new NDList(LeNet.lenet(x, whole))));
        }
        List<NDArray> expected = flat(whole.stream().map(NDArray::getGradient).toList());

        List<NDArray> w = flat(params);
        List<NDArray> acts = new ArrayList<>(List.of(x));
        try (NoGrad off = NoGrad.scope()) {
            for (int l = 0; l < LeNetLayers.count(); l++) {
                acts.add(LeNetLayers.forward(l, acts.get(l), w.get(l)));
            }
        }
        NDArray dOut = null;
        for (int l = LeNetLayers.count() - 1; l >= 0; l--) {
            LeNetLayers.Grads g = l == LeNetLayers.count() - 1 ? LeNetLayers.backwardLoss(acts.get(l), w.get(l), y, 1f)
                    : LeNetLayers.backward(l, acts.get(l), w.get(l), dOut);
            // Recomputing runs the same kernels on the same values as the whole graph: rounding at most, of gradients below 1.
            assertTrue(g.weights().sub(expected.get(l)).abs().max().getFloat() <= 1e-6f, "layer " + l);
            if (l == LeNetLayers.count() - 1) {
                assertTrue(g.loss() > 2f && g.loss() < 2.6f, "the loss near ln 10 at d2l's initialisation: " + g.loss());
            } else {
                assertEquals(0f, g.loss());
            }
            dOut = g.input();
        }
        assertNull(dOut, "the first layer's input is the images, which need no gradient");
    }

    @Test
    void aStepOnTwoReplicasGivesTheWholeBatchsGradientsAndLoss() {
        List<NDArray> params = LeNet.initParams(manager);
        NDArray x = images(16);
        NDArray y = labels(16);
        List<NDArray> w = flat(params);
        List<List<NDArray>> one = new ArrayList<>();
        float loss1 = LeNetLayers.step(List.of(x), List.of(y), 16, l -> List.of(w.get(l)), (l, g) -> one.add(0, g), false);
        List<NDArray> summed = new ArrayList<>();
        List<NDArray> xs = List.of(x.get("0:10"), x.get("10:16"));
        List<NDArray> ys = List.of(y.get("0:10"), y.get("10:16"));
        float loss2 = LeNetLayers.step(xs, ys, 16, l -> List.of(w.get(l), w.get(l)),
                (l, g) -> summed.add(0, g.get(0).add(g.get(1))), false);
        // Two shards weighted by their shares sum to the whole batch's mean loss and its gradients, up to float32
        // rounding: the gradients are below 1, so 1e-6 is a few units in their last place.
        assertEquals(loss1, loss2, 1e-5f);
        for (int l = 0; l < LeNetLayers.count(); l++) {
            assertTrue(summed.get(l).sub(one.get(l).get(0)).abs().max().getFloat() <= 1e-6f, "layer " + l);
        }
    }

    @Test
    void theWholeNetworksGapIsZeroForItsOwnGradientsAndSeesAChange() {
        List<NDArray> params = LeNet.initParams(manager);
        NDArray x = images(8);
        NDArray y = labels(8);
        List<NDArray> grads = new ArrayList<>();
        List<NDArray> w = flat(params);
        LeNetLayers.step(List.of(x), List.of(y), 8, l -> List.of(w.get(l)), (l, g) -> grads.add(0, g.get(0)), false);
        assertTrue(LeNetLayers.wholeNetworkGap(params, x, y, grads) <= 1e-6f); // rounding at most, gradients below 1
        grads.set(2, grads.get(2).add(0.5f));
        assertEquals(0.5, LeNetLayers.wholeNetworkGap(params, x, y, grads), 1e-3);
    }

    @Test
    void backwardLossScalesTheGradientsByTheWeight() {
        List<NDArray> params = LeNet.initParams(manager);
        NDArray h = images(4);
        List<NDArray> w = flat(params);
        for (int l = 0; l < 3; l++) {
            h = LeNetLayers.forward(l, h, w.get(l));
        }
        NDArray y = labels(4);
        NDArray full = LeNetLayers.backwardLoss(h.duplicate(), w.get(3), y, 1f).weights();
        NDArray quarter = LeNetLayers.backwardLoss(h.duplicate(), w.get(3), y, 0.25f).weights();
        // Multiplying by 0.25 is exact in binary floating point.
        assertArrayEquals(full.mul(0.25f).toFloatArray(), quarter.toFloatArray());
    }

    @Test
    void aFlatArrayOfTheWrongSizeIsRefusedWithTheSizeExpected() {
        NDArray wrong = manager.zeros(new Shape(10), DataType.FLOAT32);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LeNetLayers.forward(0, images(1), wrong));
        assertTrue(e.getMessage().contains("200 elements"), e.getMessage());
    }

    @Test
    void flattenRefusesAListThatIsNotLenetsTensors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LeNetLayers.flatten(List.of(manager.zeros(new Shape(3))), 0));
        assertTrue(e.getMessage().contains("8 tensors"), e.getMessage());
        IllegalArgumentException layer = assertThrows(IllegalArgumentException.class,
                () -> LeNetLayers.size(4));
        assertTrue(layer.getMessage().contains("layers 0 to 3"), layer.getMessage());
    }

    @Test
    void theLastLayerTakesItsGradientFromTheLoss() {
        List<NDArray> w = flat(LeNet.initParams(manager));
        assertThrows(IllegalArgumentException.class,
                () -> LeNetLayers.backward(3, manager.zeros(new Shape(2, 128)), w.get(3), manager.zeros(new Shape(2, 10))));
    }
}
