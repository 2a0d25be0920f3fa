package org.d2l.multigpu.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rapaio.jupyter.kernel.channels.LoopThread;

class LoopThreadsTest {

    /** Stands for a rapaio channel: its polling thread is in a field named loopThread. */
    static final class Channel {
        private volatile LoopThread loopThread;
    }

    @Test
    void aPollingThreadThatEndedAtStartIsStartedAgainWithTheSameLoop() throws Exception {
        CountDownLatch polled = new CountDownLatch(3);
        LoopThread dead = new LoopThread("Shell-test", 5, polled::countDown);
        dead.shutdown(); // as if the thread had read running == false before start() set it
        dead.start();
        dead.shutdown();
        dead.join();
        Channel channel = new Channel();
        channel.loopThread = dead;

        LoopThreads.ensureLooping(channel);

        LoopThread now = channel.loopThread;
        assertNotSame(dead, now);
        assertEquals("Shell-test", now.getName());
        assertTrue(polled.await(10, TimeUnit.SECONDS), "the new thread runs the channel's loop");
        now.shutdown();
    }

    @Test
    void theFieldsTheLauncherReadsExistInRapaio301() {
        for (String[] f : new String[][] {
                {"org.rapaio.jupyter.kernel.channels.Channels", "handlers"},
                {"org.rapaio.jupyter.kernel.channels.Channels", "shell"},
                {"org.rapaio.jupyter.kernel.channels.Channels", "control"},
                {"org.rapaio.jupyter.kernel.channels.Channels", "heartbeat"},
                {"org.rapaio.jupyter.kernel.channels.Channels", "stdin"},
                {"org.rapaio.jupyter.kernel.channels.Channels", "iopub"},
                {"org.rapaio.jupyter.kernel.channels.Channels", "isConnected"},
                {"org.rapaio.jupyter.kernel.channels.ShellChannel", "loopThread"},
                {"org.rapaio.jupyter.kernel.channels.HeartbeatChannel", "loopThread"},
                {"org.rapaio.jupyter.kernel.channels.AbstractChannel", "socket"},
                {"org.rapaio.jupyter.kernel.channels.LoopThread", "running"},
                {"org.rapaio.jupyter.kernel.channels.LoopThread", "sleep"},
                {"org.rapaio.jupyter.kernel.channels.LoopThread", "loopBody"},
                {"org.rapaio.jupyter.kernel.core.java.JavaEngine", "controlProvider"},
                {"org.rapaio.jupyter.kernel.core.java.JavaEngine", "executionId"},
                {"org.rapaio.jupyter.kernel.core.java.RapaioExecutionControl", "running"}}) {
            try {
                Class.forName(f[0]).getDeclaredField(f[1]);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(f[0] + "." + f[1] + " is missing: " + e, e);
            }
        }
    }
}
