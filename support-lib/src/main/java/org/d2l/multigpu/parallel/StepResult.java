package org.d2l.multigpu.parallel;

/** What one global step (or round) measured: summed loss and number of correct predictions over its examples. */
public record StepResult(double lossSum, double correct, long examples) {}
