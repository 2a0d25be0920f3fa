package org.d2l.multigpu.kernel;

import java.lang.reflect.Method;
import org.rapaio.jupyter.kernel.channels.Channels;
import org.rapaio.jupyter.kernel.core.LanguageInfo;
import org.rapaio.jupyter.kernel.core.RapaioKernel;
import org.rapaio.jupyter.kernel.message.Message;
import org.rapaio.jupyter.kernel.message.messages.ShellKernelInfoRequest;
import org.rapaio.jupyter.kernel.message.messages.ShellKernelInfoReply;

/**
 * Answers Jupyter's kernel_info_request as rapaio does, but with the Java feature version ("17") as the
 * language's version instead of the JDK's full build string ("17.0.15+6-Debian-1deb12u1"): a notebook
 * front end copies the reply's language_info into the notebook and marks it changed whenever it differs
 * from the saved one, so a lesson saved on one JDK build would open "(unsaved changes)" on every other.
 */
final class KernelInfo {

    private KernelInfo() {
    }

    /** Replies to {@code request} on {@code channels} with {@code kernel}'s info, the language version normalised. */
    static void reply(RapaioKernel kernel, Channels channels, Message<ShellKernelInfoRequest> request) {
        channels.busyThenIdle();
        channels.reply(normalised(rapaioReply(kernel)));
    }

    /** {@code reply} with the language version set to {@link #languageVersion()}. */
    static ShellKernelInfoReply normalised(ShellKernelInfoReply reply) {
        LanguageInfo l = reply.langInfo();
        LanguageInfo same = new LanguageInfo(l.name(), languageVersion(), l.mimetype(), l.fileExtension(),
                l.pygmentsLexer(), l.codemirrorMode(), l.nbconvertExporter());
        return new ShellKernelInfoReply(reply.protocolVersion(), reply.implementationName(), reply.implementationVersion(),
                same, reply.banner(), reply.helpLinks());
    }

    /** The Java feature version this kernel runs, "17" on every JDK 17 build. */
    static String languageVersion() {
        return Integer.toString(Runtime.version().feature());
    }

    private static ShellKernelInfoReply rapaioReply(RapaioKernel kernel) {
        try {
            Method m = RapaioKernel.class.getDeclaredMethod("kernelInfo");
            m.setAccessible(true);
            return (ShellKernelInfoReply) m.invoke(kernel);
        } catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("RapaioKernel.kernelInfo() not found: this launcher is written for "
                    + "rapaio-jupyter-kernel " + KernelLauncher.RAPAIO_VERSION + "; install that version (scripts/setup.sh does).", ex);
        }
    }
}
