/**
 * What a DJL optimizer keeps between updates, which DJL offers no API for: its per-parameter state (momentum,
 * moments) for averaging and checkpoints, and its update counts.
 */
package org.d2l.multigpu.optimizer;
