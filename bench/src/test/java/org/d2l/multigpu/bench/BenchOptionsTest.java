package org.d2l.multigpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.d2l.multigpu.bench.harness.Cli;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    private static BenchOptions parse(String... args) {
        return Cli.parse(new BenchOptions(), args).withDefaults();
    }

    @Test
    void lenetAndResnetHaveTheirOwnDefaults() {
        BenchOptions l = parse();
        assertEquals(List.of(256, 30, 5, 1024, 3), List.of(l.batch, l.steps, l.warmup, l.limit, l.rounds));
        BenchOptions r = parse("--model", "resnet18-w16", "--batch", "64");
        assertEquals(List.of(64, 4, 1, 256), List.of(r.batch, r.steps, r.warmup, r.limit));
        assertEquals(16, r.resnetWidth());
        assertEquals(64, parse("--model", "resnet18").resnetWidth());
    }

    @Test
    void eachSuiteMeasuresItsConfigurationsReferenceFirst() {
        assertEquals(List.of("djl", "dp1", "dp2", "dp4"), parse().configs());
        assertEquals(List.of("ga2", "pa2f1", "pa2f3"), parse("--suite", "averaging").configs());
        assertEquals(List.of("dp1", "djl", "djl-metrics", "dp1-glibc"), parse("--suite", "peer").configs());
        assertEquals(List.of("torch", "dp1", "djl", "djl-metrics", "dp1-glibc"), parse("--suite", "peer", "--python", "p").configs());
        assertEquals("gpu", parse("--suite", "gpu").device);
        assertEquals(2, parse("--suite", "peer").threads);
        assertEquals(null, parse().threads);
    }

    @Test
    void aChildGetsEverySettingItMeasuresWith() {
        BenchOptions child = parse(parse("--model", "dl4j", "--steps", "7").childArgs("pa2f3").toArray(String[]::new));
        assertEquals(List.of("pa2f3", "dl4j", 7, 256, 1024, "cpu", "fashion"),
                List.of(child.child, child.model, child.steps, child.batch, child.limit, child.device, child.data));
    }

    @Test
    void anUnknownSuiteOrModelSaysWhatToUse() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse("--suite", "speed"));
        assertTrue(e.getMessage().startsWith("--suite: unknown value 'speed'; use one of trainers, averaging, "
                + "precision, gpu, peer"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> parse("--model", "resnet50"));
        assertTrue(e.getMessage().startsWith("--model: unknown model 'resnet50'; use lenet, lenet-sigmoid, dl4j, "
                + "resnet18 or resnet18-wN"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> parse("--steps", "0"));
        assertTrue(e.getMessage().startsWith("--steps must be at least 1, got 0"), e.getMessage());
    }
}
