/**
 * Early stopping for the {@link org.d2l.multigpu.parallel.DataParallelTrainer}, after Deeplearning4j's
 * {@code EarlyStoppingParallelTrainer}: stop by epochs, time or lack of improvement, keep the best
 * parameters, restore them at the end.
 */
package org.d2l.multigpu.earlystopping;
