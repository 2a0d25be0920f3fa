package org.d2l.multigpu.notebook;

import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * One notebook output that is shown once and then redrawn in place (Jupyter's update_display_data), as
 * a live figure needs; its content is made and sent on the output thread, so that the training thread
 * keeps a Kernel &gt; Interrupt.
 */
public final class LiveDisplay {

    private String displayId;
    private boolean live;

    /** Shows {@code content} as a new output; returns whether a kernel showed it (and it can be redrawn). */
    public boolean show(Supplier<Map<String, String>> content) {
        displayId = "d2l_live_" + UUID.randomUUID();
        String id = displayId;
        live = Notebook.kernelName().isPresent() && KernelIo.call(() -> Notebook.display(content.get(), id));
        return live;
    }

    /** Redraws the output shown last with {@code content}; returns false, and is no longer live, where it could not. */
    public boolean redraw(Supplier<Map<String, String>> content) {
        String id = displayId;
        live = live && KernelIo.call(() -> Notebook.update(content.get(), id));
        return live;
    }
}
