/** Fashion-MNIST loading that works offline, and run settings read from the environment. */
package org.d2l.multigpu.data;
