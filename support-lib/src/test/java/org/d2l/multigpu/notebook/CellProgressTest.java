package org.d2l.multigpu.notebook;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.ServiceLoader;
import org.d2l.multigpu.loop.EpochListener;
import org.junit.jupiter.api.Test;

/** The engine finds the notebook's cell progress only through the service file named after the provider type. */
class CellProgressTest {

    @Test
    void everyRunFindsTheCellProgressThroughTheServiceFileOfTheProviderItsLoopLoads() {
        List<String> found = ServiceLoader.load(EpochListener.Provider.class, EpochListener.class.getClassLoader())
                .stream().map(p -> p.type().getName()).toList();
        assertTrue(found.contains(CellProgress.Provider.class.getName()),
                "META-INF/services/" + EpochListener.Provider.class.getName() + " should name "
                        + CellProgress.Provider.class.getName() + "; found " + found);
    }
}
