// Package tracetest holds what every chapter's golden test needs: the step labels of a chapter
// log, and the comparison of a run's output with its golden file.
//
// Java: none; this package exists for the annotated text.
//
// # Files
//
//	golden.go  StepLabels (the labels of the "[component] NN Label k=v ..." lines, in order, a
//	           leading chapter word "chNN" allowed) and
//	           CompareGolden (labels first, compared with go-cmp, so a lost or moved step shows as
//	           such; then every line; with -update it rewrites the golden file first)
//
// No goroutines, no locks.
package tracetest
