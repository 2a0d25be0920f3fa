package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.lang.reflect.ParameterizedType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DjlFieldsTest {

    private static Optimizer sgd() {
        return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build();
    }

    @Test
    void setsAndReadsBackAPrivateFieldOfDjl() {
        Optimizer opt = sgd();
        DjlFields.set(Optimizer.class, "beginNumUpdate", opt, 7, "this test");
        assertEquals(7, DjlFields.<Integer>get(Optimizer.class, "beginNumUpdate", opt, "this test"));
    }

    @Test
    void aMissingFieldNamesTheClassTheFieldWhatNeedsItAndBothVersions() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> DjlFields.get(Optimizer.class, "noSuchField", sgd(), "the test's purpose"));
        String m = e.getMessage();
        assertTrue(m.contains("ai.djl.training.optimizer.Optimizer.noSuchField"), m);
        assertTrue(m.contains("the test's purpose"), m);
        assertTrue(m.contains(ai.djl.engine.Engine.getDjlVersion()) && m.contains(DjlFields.BUILT_FOR), m);
    }

    @Test
    void findsTheFieldsOfAGivenGenericTypeInSuperclassesToo() {
        // Optimizer declares updateCounts, a Map<String, Integer>; Sgd (a subclass) declares none of that type
        var maps = DjlFields.valuesOfType(sgd(), t -> t instanceof ParameterizedType p && p.getRawType() == Map.class
                && p.getActualTypeArguments()[1] == Integer.class, "this test");
        assertEquals(1, maps.size());
    }
}
